data "berth_cluster" "this" {}

# Refuse to apply while a server is down or quorum has no room to lose one.
check "servers_healthy" {
  assert {
    condition     = data.berth_cluster.this.healthy && data.berth_cluster.this.failure_tolerance > 0
    error_message = "Nomad servers: ${data.berth_cluster.this.healthy_server_count} of ${data.berth_cluster.this.server_count} healthy, failure tolerance ${data.berth_cluster.this.failure_tolerance}."
  }
}

output "nomad_leader" {
  value = data.berth_cluster.this.leader_address
}

output "nomad_server_versions" {
  value = { for s in data.berth_cluster.this.servers : s.name => s.version }
}
