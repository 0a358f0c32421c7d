# Terraform 1.12 and later: import a job by its identity.
import {
  to = berth_job.shop
  identity = {
    namespace = "default" # optional; default: the provider's namespace
    name      = "shop"
  }
}
