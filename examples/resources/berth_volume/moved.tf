# Terraform 1.8 and later: take over volumes the hashicorp/nomad provider
# created, without changing them in Nomad. Write the same settings as the
# berth_volume resources above (blocks become attributes; a CSI volume's
# secrets become secrets_wo) and plan: no change.
moved {
  from = nomad_dynamic_host_volume.pgdata
  to   = berth_volume.pgdata
}

moved {
  from = nomad_csi_volume.shared
  to   = berth_volume.shared
}
