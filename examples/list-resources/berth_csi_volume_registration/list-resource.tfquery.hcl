# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
list "berth_csi_volume_registration" "disks" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "pg"
  }
}
