# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
# Lists host volumes without a plugin (registered, not created).
list "berth_host_volume_registration" "dirs" {
  provider         = berth
  include_resource = true
  config {
    namespace   = "*"
    name_prefix = "pg"
  }
}
