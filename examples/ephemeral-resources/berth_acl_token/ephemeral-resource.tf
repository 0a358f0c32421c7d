# A token that lives only for this run: created when Terraform opens it,
# deleted when Terraform closes it. Its secret configures a second provider
# block that can only read jobs.
ephemeral "berth_acl_token" "reader" {
  name     = "terraform-run-reader"
  policies = ["read-jobs"]
  ttl      = "15m"
}

provider "berth" {
  alias = "reader"
  token = ephemeral.berth_acl_token.reader.secret_id
}

data "berth_instance" "web" {
  provider = berth.reader
  name     = "web"
}
