# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
# Results carry accessor IDs, never secrets.
list "berth_acl_token" "ci" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "ci-"
  }
}
