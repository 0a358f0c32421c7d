# Nomad's workload identity keys, for a verifier that takes PEM keys.
data "berth_jwks" "nomad" {}

output "workload_identity_keys" {
  value = { for k in data.berth_jwks.nomad.keys : k.key_id => k.public_key_pem }
}
