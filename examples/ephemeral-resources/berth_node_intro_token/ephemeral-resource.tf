# A token for one new client node, made for this run and never stored; the
# node presents it when it first registers. Nomad 1.11 or later; the
# provider's token needs node write.
ephemeral "berth_node_intro_token" "edge" {
  node_name = "edge-1"
  node_pool = "edge"
  ttl       = "15m"
}

# Write-only, so the token reaches the machine without entering the plan
# or state (Terraform 1.11+; any write-only attribute will do). The node's
# bootstrap reads it from the Variable and hands it to the agent as
# NOMAD_CLIENT_INTRO_TOKEN, -client-intro-token, or intro_token.jwt in its
# state directory.
resource "berth_variable" "edge_intro" {
  path             = "bootstrap/edge-1"
  items_wo         = { intro_token = ephemeral.berth_node_intro_token.edge.jwt }
  items_wo_version = 1
}
