# A token's settings by accessor ID (never its secret, which berth keeps
# out of state).
data "berth_acl_token" "ci" {
  accessor_id = "8a3e9c2d-1f47-4b6a-9e05-3c7d2b1a6f48"
}

output "ci_token_expires" {
  value = data.berth_acl_token.ci.expiration_time
}
