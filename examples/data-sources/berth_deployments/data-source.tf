data "berth_deployments" "web" {
  job = "web"
}

output "web_last_deployment" {
  value = try(data.berth_deployments.web.deployments[0].status, "none")
}
