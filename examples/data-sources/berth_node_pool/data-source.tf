# One node pool by name, as Nomad holds it.
data "berth_node_pool" "gpu" {
  name = "gpu"
}

output "gpu_pool_team" {
  value = data.berth_node_pool.gpu.meta["team"]
}
