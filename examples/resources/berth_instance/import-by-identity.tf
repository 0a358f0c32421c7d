# Terraform 1.12 and later: import an existing Nomad job by its identity.
import {
  to = berth_instance.web
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    name      = "web"
  }
}
