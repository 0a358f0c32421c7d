# By name, or by `id` (the full ID or a unique prefix such as "77e393ef").
data "berth_node" "worker" {
  name = "worker-1"
}

output "worker_free_memory_mib" {
  value = data.berth_node.worker.free.memory
}

output "worker_recent_events" {
  value = [for e in data.berth_node.worker.events : "${e.time} ${e.subsystem}: ${e.message}"]
}
