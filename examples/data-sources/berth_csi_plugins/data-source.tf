data "berth_csi_plugins" "all" {}

check "csi_plugins_healthy" {
  assert {
    condition     = alltrue([for p in data.berth_csi_plugins.all.plugins : p.healthy])
    error_message = "Unhealthy CSI plugins: ${join(", ", [for p in data.berth_csi_plugins.all.plugins : p.id if !p.healthy])}."
  }
}
