# Settings and secrets of the "web" job, readable by its tasks through their
# workload identity: {{ with nomadVar "nomad/jobs/web" }}{{ .db_password }}{{ end }}
variable "db_password" {
  type      = string
  ephemeral = true # Terraform 1.10+: never stored
}

resource "berth_variable" "web" {
  path = "nomad/jobs/web"

  # Plain items: in state and in plans.
  items = {
    db_host = "db.internal"
    db_user = "web"
  }

  # Secret items: write-only (Terraform 1.11+), never in plan or state.
  # Bump the version to write new values.
  items_wo = {
    db_password = var.db_password
  }
  items_wo_version = 1
}
