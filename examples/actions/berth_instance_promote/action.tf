# Terraform 1.14 and later. With update.auto_promote = false, an apply ends
# with the canaries placed and healthy; promote them when you are ready:
#   terraform apply -invoke=action.berth_instance_promote.api
action "berth_instance_promote" "api" {
  config {
    name = berth_instance.api.name
  }
}
