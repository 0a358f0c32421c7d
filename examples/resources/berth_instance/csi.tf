# A database with two replicas, each on its own CSI volume: per_alloc
# makes allocation 0 claim "pgdata[0]" and allocation 1 "pgdata[1]", so
# each replica finds its own data again after a restart or a new version.
resource "berth_volume" "pgdata" {
  count        = 2
  name         = "pgdata[${count.index}]"
  type         = "csi"
  plugin_id    = "ebs"
  capacity_min = "20GiB"
  capabilities = [
    { access_mode = "single-node-writer", attachment_mode = "file-system" },
  ]
}

resource "berth_instance" "db" {
  name     = "db"
  replicas = 2

  volumes = {
    data = {
      type      = "csi"
      volume    = "pgdata" # the names without the [<index>] suffix
      per_alloc = true
    }
  }

  services = {
    postgres = {
      driver = "docker"
      image  = "postgres:16"
      cpu    = 500
      memory = 1024
      mounts = [{ volume = "data", destination = "/var/lib/postgresql/data" }]
    }
  }

  # Instances are destroyed before the volumes they claim.
  depends_on = [berth_volume.pgdata]
}
