# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
# One result: the scheduler configuration of the provider's region.
list "berth_scheduler_settings" "this" {
  provider         = berth
  include_resource = true
}
