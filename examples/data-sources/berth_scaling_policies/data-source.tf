data "berth_scaling_policies" "web" {
  job  = "web"
  type = "horizontal"
}

output "web_scaling_enabled" {
  value = alltrue([for p in data.berth_scaling_policies.web.policies : p.enabled])
}
