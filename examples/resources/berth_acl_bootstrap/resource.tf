# Bootstrap a fresh ACL-enabled cluster and use the management token in the
# same apply. The secret is a UUID the caller chooses (e.g. from uuidgen or
# a secrets manager), passed as an ephemeral variable:
#   TF_VAR_bootstrap_secret=$(uuidgen) terraform apply
variable "bootstrap_secret" {
  type      = string
  ephemeral = true
}

resource "berth_acl_bootstrap" "this" {
  bootstrap_secret_wo = var.bootstrap_secret
}

provider "berth" {
  alias = "admin"
  token = var.bootstrap_secret
}

resource "berth_node_pool" "gpu" {
  provider   = berth.admin
  name       = "gpu"
  depends_on = [berth_acl_bootstrap.this]
}
