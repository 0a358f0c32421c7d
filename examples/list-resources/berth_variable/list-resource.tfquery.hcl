# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
# The generated configuration holds every item as a plain item.
list "berth_variable" "jobs" {
  provider         = berth
  include_resource = true
  config {
    namespace   = "default"
    path_prefix = "nomad/jobs/"
  }
}
