# The scaling policy of the web job's group, found by job, then read by ID.
data "berth_scaling_policies" "web" {
  job = "web"
}

data "berth_scaling_policy" "web" {
  id = data.berth_scaling_policies.web.policies[0].id
}

output "web_bounds" {
  value = {
    min      = data.berth_scaling_policy.web.min
    max      = data.berth_scaling_policy.web.max
    cooldown = jsondecode(data.berth_scaling_policy.web.policy).cooldown
  }
}
