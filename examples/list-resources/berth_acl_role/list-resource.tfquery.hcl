# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
list "berth_acl_role" "web" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "web-"
  }
}
