# Terraform 1.14 and later. Run it on demand:
#   terraform apply -invoke=action.berth_instance_restart.api
action "berth_instance_restart" "api" {
  config {
    name    = berth_instance.api.name
    timeout = "15m"
  }
}

# Or restart the instance whenever its configuration file changes.
resource "terraform_data" "api_config" {
  input = filesha256("${path.module}/api.conf")
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.berth_instance_restart.api]
    }
  }
}
