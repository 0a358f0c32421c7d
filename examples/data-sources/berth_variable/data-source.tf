# Metadata and keys only: values would be stored in state.
data "berth_variable" "web" {
  path = "nomad/jobs/web"
}

output "web_variable_keys" {
  value = data.berth_variable.web.keys
}
