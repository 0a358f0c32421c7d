# Terraform 1.12 and later: import a registered host volume by its identity.
import {
  to = berth_host_volume_registration.pgdata
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    id        = "8f3c2a1e-4b5d-6e7f-8091-a2b3c4d5e6f7"
  }
}
