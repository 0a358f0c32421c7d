resource "berth_acl_role" "web_operators" {
  name        = "web-operators"
  description = "Operators of the web namespace"
  policies    = [berth_acl_policy.web_read.name]
}
