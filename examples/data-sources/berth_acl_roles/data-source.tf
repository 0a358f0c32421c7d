data "berth_acl_roles" "all" {}

output "roles" {
  value = { for r in data.berth_acl_roles.all.roles : r.name => r.policies }
}
