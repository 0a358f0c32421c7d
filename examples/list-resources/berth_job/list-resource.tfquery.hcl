# Terraform 1.14 and later, in a .tfquery.hcl file:
#   terraform query -generate-config-out=generated.tf
# writes a berth_job (its jobspec as JSON) and an import block for every
# job berth_instance cannot represent; list berth_instance beside it to
# adopt the rest as typed instances.
list "berth_job" "everything_else" {
  provider         = berth
  include_resource = true
  config {
    namespace = "default"
  }
}
