# Terraform 1.12 and later: import a registered CSI volume by its identity.
import {
  to = berth_csi_volume_registration.pgdata
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    volume_id = "pgdata"
  }
}
