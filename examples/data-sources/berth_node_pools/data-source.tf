# Every node pool whose name starts with "gpu-", as Nomad holds it.
data "berth_node_pools" "gpu" {
  name_prefix = "gpu-"
}

output "gpu_pools" {
  value = data.berth_node_pools.gpu.names
}
