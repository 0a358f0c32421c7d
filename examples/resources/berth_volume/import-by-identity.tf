# Terraform 1.12 and later: import a host volume by its identity. `id` is
# the volume's ID, or its name when the name is unique in the namespace.
import {
  to = berth_volume.data
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    id        = "data"
  }
}
