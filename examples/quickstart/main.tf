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

# Every node with its capacity, read after the instance is placed so its
# allocation shows in `allocated` and `free`.
data "berth_nodes" "all" {
  depends_on = [berth_instance.hello, berth_instance.notes_writer]
}

# Nodes that can take work and have at least 100 MHz and 64 MiB free.
data "berth_nodes" "ready" {
  ready    = true
  min_free = { cpu = 100, memory = 64 }
}

# One node in detail: here, the first one listed.
data "berth_node" "first" {
  id = data.berth_nodes.all.nodes[0].id
}

# A small application: an init task, the main task and a sidecar, all on
# the raw_exec driver so it runs on any machine without Docker.
resource "berth_instance" "hello" {
  name     = "hello"
  replicas = 1
  update   = { min_healthy_time = "2s" }

  services = {
    setup = {
      role    = "init"
      driver  = "raw_exec"
      command = "/bin/sh"
      args    = ["-c", "echo preparing"]
      cpu     = 50
      memory  = 32
    }
    app = {
      driver  = "raw_exec"
      command = "/bin/sh"
      args    = ["-c", "while true; do echo \"hello from $NOMAD_ALLOC_NAME\"; sleep 10; done"]
      env     = { GREETING = "hello" }
      cpu     = 100
      memory  = 64
    }
    logger = {
      role    = "sidecar"
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = 50
      memory  = 32
    }
  }
}

# A persistent volume on the node, and an exec task (the driver that can
# mount host volumes) that appends to a file on it every few seconds.
resource "berth_volume" "notes" {
  name       = "notes"
  parameters = { mode = "0777" }
}

resource "berth_instance" "notes_writer" {
  name     = "notes-writer"
  replicas = 1
  update   = { min_healthy_time = "2s" }
  volumes  = { notes = { volume = berth_volume.notes.name } }
  services = {
    writer = {
      driver  = "exec"
      command = "/bin/sh"
      args    = ["-c", "while true; do date >> /notes/log.txt; sleep 5; done"]
      cpu     = 50
      memory  = 32
      mounts  = [{ volume = "notes", destination = "/notes" }]
    }
  }
}

data "berth_instance" "hello" {
  name = berth_instance.hello.name
}

output "hello" {
  value = {
    status      = data.berth_instance.hello.status
    version     = berth_instance.hello.job_version
    allocations = [for a in data.berth_instance.hello.allocations : "${a.name} ${a.client_status} on ${a.node_name}"]
  }
}

output "notes" {
  description = "The file the notes writer appends to, on the node."
  value       = "${berth_volume.notes.host_path}/log.txt on ${berth_volume.notes.node_name}"
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
