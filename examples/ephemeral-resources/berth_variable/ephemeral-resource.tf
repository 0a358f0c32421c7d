# Copy a secret from one Variable into another without it ever touching the
# plan or state (Terraform 1.11+ for the write-only attribute).
ephemeral "berth_variable" "shared" {
  path = "shared/database"
}

resource "berth_variable" "web" {
  path = "nomad/jobs/web"
  items_wo = {
    db_password = ephemeral.berth_variable.shared.items["password"]
  }
  items_wo_version = 1
}
