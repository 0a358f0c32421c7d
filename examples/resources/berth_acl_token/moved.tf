# Take over a token made with hashicorp/nomad's nomad_acl_token: nothing
# changes in Nomad, and the secret that provider kept in state is dropped.
moved {
  from = nomad_acl_token.ci
  to   = berth_acl_token.ci
}

resource "berth_acl_token" "ci" {
  name     = "ci-deployer"
  policies = ["web-deploy"]
}
