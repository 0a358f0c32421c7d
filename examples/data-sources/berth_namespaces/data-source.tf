# Every namespace the provider's token can see, with its description.
data "berth_namespaces" "all" {}

output "namespaces" {
  value = data.berth_namespaces.all.names
}
