# Terraform 1.14 and later. Return the instance to its previous stable
# version (the newest older one whose deployment succeeded):
#   terraform apply -invoke=action.berth_instance_revert.api
action "berth_instance_revert" "api" {
  config {
    name = berth_instance.api.name
  }
}

# Or to a version of your choice, as `nomad job history` lists them,
# without waiting for its deployment:
action "berth_instance_revert" "api_v3" {
  config {
    name             = berth_instance.api.name
    version          = 3
    wait_for_healthy = false
  }
}
