# Terraform 1.12 and later: import a lease by its identity.
import {
  to = berth_reservation.ci_runner
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    name      = "ci-runner"
  }
}
