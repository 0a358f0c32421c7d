# Members of the "web-ops" group get the web-operators role.
resource "berth_acl_binding_rule" "web_ops" {
  auth_method = berth_acl_auth_method.sso.name
  description = "web-ops group: web operators"
  selector    = "\"web-ops\" in list.groups"
  bind_type   = "role"
  bind_name   = berth_acl_role.web_operators.name
}
