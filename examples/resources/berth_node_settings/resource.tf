# Tag a node for placement, and drain it for maintenance: the apply waits
# until its allocations run elsewhere. Remove `drain` to put it back in
# service; destroy gives the node back as berth found it.
resource "berth_node_settings" "db1" {
  node_name = "db1"

  meta = {
    storage = "nvme"
  }

  drain = {
    deadline = "30m"
  }
}

# A job that runs only on nodes tagged so.
resource "berth_instance" "postgres" {
  name = "postgres"
  placement = {
    constraints = [{ attribute = "$${meta.storage}", value = "nvme" }]
  }
  services = {
    db = { driver = "exec", command = "/usr/lib/postgresql/16/bin/postgres", cpu = 500, memory = 1024 }
  }
  depends_on = [berth_node_settings.db1]
}
