# The configuration `make up` applies against the local dev agent. The
# provider settings come from the environment make up exports (NOMAD_ADDR).
terraform {
  required_providers {
    berth = {
      source = "berthhq/berth"
    }
  }
}

provider "berth" {}

# Every node with its capacity.
data "berth_nodes" "all" {}

# Nodes that can take work and have at least 100 MHz and 64 MiB free.
data "berth_nodes" "ready" {
  ready    = true
  min_free = { cpu = 100, memory = 64 }
}

# One node in detail: here, the first one listed.
data "berth_node" "first" {
  id = data.berth_nodes.all.nodes[0].id
}

output "nodes" {
  description = "Name, status and free capacity of every node."
  value = [for n in data.berth_nodes.all.nodes : {
    name   = n.name
    status = n.status
    ready  = n.ready
    free   = n.free
  }]
}

output "ready_node_names" {
  value = [for n in data.berth_nodes.ready.nodes : n.name]
}

output "first_node" {
  value = {
    id           = data.berth_node.first.id
    drivers      = data.berth_node.first.drivers
    allocatable  = data.berth_node.first.allocatable
    allocations  = data.berth_node.first.allocation_count
    latest_event = try(data.berth_node.first.events[0].message, null)
  }
}
