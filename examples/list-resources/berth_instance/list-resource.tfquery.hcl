# Terraform 1.14 and later, in a .tfquery.hcl file:
#   terraform query -generate-config-out=generated.tf
# writes a berth_instance and an import block for every job found.
list "berth_instance" "payments" {
  provider         = berth
  include_resource = true
  config {
    namespace   = "default"
    name_prefix = "payments-"
    node_pool   = "default"
    meta        = { team = "payments" }
  }
}
