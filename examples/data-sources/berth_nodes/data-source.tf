# Nodes in dc1 that can take new work and still have 1 GHz and 2 GiB free.
data "berth_nodes" "roomy" {
  datacenter = "dc1"
  ready      = true
  min_free = {
    cpu    = 1000
    memory = 2048
  }
}

# Any Nomad filter expression, evaluated by Nomad itself.
data "berth_nodes" "gpu" {
  filter = "Meta.gpu == \"true\""
}

output "roomy_nodes" {
  value = { for n in data.berth_nodes.roomy.nodes : n.name => n.free }
}
