# A namespace for one team: its jobs may use Docker and raw_exec only, and
# never host networking.
resource "berth_namespace" "payments" {
  name        = "payments"
  description = "Jobs of the payments team"
  meta = {
    owner = "payments@example.com"
  }
  capabilities = {
    enabled_task_drivers   = ["docker", "raw_exec"]
    disabled_network_modes = ["host"]
  }
}

resource "berth_job" "api" {
  jobspec    = file("${path.module}/api.nomad.hcl") # declares namespace = "payments"
  depends_on = [berth_namespace.payments]
}
