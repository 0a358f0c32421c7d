# A log shipper on every node of the "edge" node pool: one allocation per
# ready, eligible node, and nodes that join the pool later get one from
# Nomad without an apply. The apply waits until every node runs it.
resource "berth_instance" "log_shipper" {
  name      = "log-shipper"
  type      = "system"
  node_pool = "edge"

  services = {
    shipper = {
      driver = "docker"
      image  = "timberio/vector:0.39.0-alpine"
      config = jsonencode({ volumes = ["/var/log:/host/var/log:ro"] })
      cpu    = 100
      memory = 128
    }
  }

  # System jobs roll out node by node; canaries do not exist for them.
  update = {
    max_parallel = 2
  }
}
