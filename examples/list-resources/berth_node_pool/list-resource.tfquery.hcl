# Terraform 1.14 and later: terraform query -generate-config-out=generated.tf
# Nomad's built-in pools "all" and "default" are left out.
list "berth_node_pool" "gpu" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "gpu"
  }
}
