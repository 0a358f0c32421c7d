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
