provider "berth" {
  # Leases are signed with this ed25519 key (or BERTH_SIGNING_KEY).
  signing_key = file("lease.pem")
}

# A CI runner for one release, for eight hours. Nomad stops it at expiry
# even if nobody runs Terraform again; the next plan then renews it.
resource "berth_reservation" "ci" {
  name     = "ci-runner-42"
  duration = "8h"
  renew    = true

  workload = {
    driver  = "exec"
    command = "/usr/local/bin/ci-runner"
    args    = ["--release", "1.4"]
    env     = { RUNNER_LABELS = "release" }
    cpu     = 500
    memory  = 512
    disk    = 300
  }
}

output "ci_lease" {
  value = {
    expires_at = berth_reservation.ci.expires_at
    state      = berth_reservation.ci.result.state
    verified   = berth_reservation.ci.verified
  }
}
