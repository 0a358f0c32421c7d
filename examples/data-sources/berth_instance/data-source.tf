data "berth_instance" "web" {
  name = "web"
}

output "web_status" {
  value = {
    status      = data.berth_instance.web.status
    deployment  = data.berth_instance.web.deployment_status
    allocations = [for a in data.berth_instance.web.allocations : "${a.name} on ${a.node_name}: ${a.client_status}, ${a.rss_mib} MiB"]
  }
}
