# Hold capacity on a named node.
resource "berth_node_reservation" "db" {
  name        = "postgres-headroom"
  node_id     = "77e393ef-2f8a-4c1d-9e0b-3a5d6c7e8f90"
  cpu         = 2000
  memory      = 4096
  disk        = 10240
  annotations = { owner = "team-db" }
}

# Or let berth pick the node: binpack fills busy nodes first, spread keeps
# nodes even.
resource "berth_node_reservation" "batch" {
  name      = "nightly-batch"
  cpu       = 4000
  memory    = 8192
  placement = { datacenter = "dc1", node_pool = "batch", strategy = "spread" }
}

# Work placed into a reservation is pinned to its node and charged to it.
resource "berth_instance" "db" {
  name             = "postgres"
  node_reservation = berth_node_reservation.db.id
  services = {
    db = { driver = "exec", command = "/usr/lib/postgresql/16/bin/postgres", cpu = 1000, memory = 2048 }
  }
}
