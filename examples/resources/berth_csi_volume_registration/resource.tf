# Register a disk that already exists (created outside Nomad) so jobs can
# claim it as CSI volume "pgdata". Destroy deregisters it; the disk and its
# data stay.
resource "berth_csi_volume_registration" "pgdata" {
  volume_id   = "pgdata"
  name        = "pgdata"
  external_id = "vol-0a1b2c3d4e5f" # the plugin's ID for the disk
  plugin_id   = "aws-ebs0"

  capabilities = [
    { access_mode = "single-node-writer", attachment_mode = "file-system" },
  ]
  mount_options = { fs_type = "ext4" }

  # Write-only: never stored in plan or state. Bump the version to send new values.
  secrets_wo         = { api_key = var.storage_api_key }
  secrets_wo_version = 1
}

variable "storage_api_key" {
  type      = string
  sensitive = true
  ephemeral = true
}
