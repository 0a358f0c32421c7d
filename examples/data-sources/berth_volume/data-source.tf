# A volume managed elsewhere, mounted here.
data "berth_volume" "shared" {
  name = "shared-cache"
}

output "shared_cache" {
  value = "${data.berth_volume.shared.host_path} on ${data.berth_volume.shared.node_name} (${data.berth_volume.shared.state})"
}
