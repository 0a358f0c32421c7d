# Terraform 1.12 and later: import a Variable by its identity.
import {
  to = berth_variable.web
  identity = {
    namespace = "default"
    path      = "nomad/jobs/web"
  }
}
