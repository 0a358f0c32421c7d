# Every CI token's accessor ID and policies (never a secret).
data "berth_acl_tokens" "ci" {
  name_prefix = "ci-"
}

output "ci_tokens" {
  value = { for t in data.berth_acl_tokens.ci.tokens : t.accessor_id => t.policies }
}
