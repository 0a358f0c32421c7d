# A role by its name (or by its ID: id = "..."), e.g. to give its ID to a token.
data "berth_acl_role" "deployers" {
  name = "deployers"
}

resource "berth_acl_token" "ci" {
  name  = "ci"
  roles = [data.berth_acl_role.deployers.id]
}

output "deployer_policies" {
  value = data.berth_acl_role.deployers.policies
}
