# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
list "berth_acl_binding_rule" "sso" {
  provider         = berth
  include_resource = true
  config {
    auth_method = "sso"
  }
}
