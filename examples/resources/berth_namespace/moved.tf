# Terraform 1.8 and later: take over a namespace the hashicorp/nomad
# provider created, without changing it in Nomad. Write the same settings
# (blocks become attributes), plan: no change.
moved {
  from = nomad_namespace.payments
  to   = berth_namespace.payments
}
