data "berth_acl_policies" "web" {
  name_prefix = "web-"
}

output "web_policies" {
  value = data.berth_acl_policies.web.policies[*].name
}
