# A policy managed elsewhere: its rules and the workloads it is attached to.
data "berth_acl_policy" "ops" {
  name = "ops-read"
}

output "ops_rules" {
  value = data.berth_acl_policy.ops.rules
}
