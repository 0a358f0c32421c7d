resource "berth_volume" "pgdata" {
  name         = "pgdata"
  capacity_min = "1GiB"
  capacity_max = "10GiB"
  access_mode  = "single-node-writer"
  parameters   = { mode = "0750", uid = "999", gid = "999" }

  constraints = [{
    attribute = "$${attr.kernel.name}"
    value     = "linux"
  }]
}

# Mounted by an instance: Nomad places it on the volume's node.
resource "berth_instance" "postgres" {
  name     = "postgres"
  replicas = 1
  volumes  = { data = { volume = berth_volume.pgdata.name } }
  services = {
    db = {
      driver  = "exec"
      command = "/usr/lib/postgresql/16/bin/postgres"
      args    = ["-D", "/var/lib/postgresql/data"]
      memory  = 512
      mounts  = [{ volume = "data", destination = "/var/lib/postgresql/data" }]
    }
  }
}

# A CSI volume, created by the controller of a running CSI plugin (a job
# with a csi_plugin block). Jobs mount it with a volume { type = "csi" }
# block; the secrets go to the plugin and are never stored in state.
resource "berth_volume" "shared" {
  name         = "shared"
  type         = "csi"
  plugin_id    = "nfs"
  capacity_min = "5GiB"
  capabilities = [
    { access_mode = "multi-node-multi-writer", attachment_mode = "file-system" },
  ]
  mount_options = { fs_type = "nfs", mount_flags = ["noatime"] }
  secrets_wo    = { password = var.nfs_password }
}

variable "nfs_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
