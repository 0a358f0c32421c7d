# Wait, within the apply that starts the plugin's job, until the plugin is
# healthy: volumes that use it can then be created.
data "berth_csi_plugin" "ebs" {
  plugin_id        = "aws-ebs0"
  wait_for_healthy = true
  wait_timeout     = "5m"
  depends_on       = [berth_job.ebs_plugin]
}

output "ebs_plugin_version" {
  value = data.berth_csi_plugin.ebs.plugin_provider_version
}
