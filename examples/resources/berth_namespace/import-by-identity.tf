# Terraform 1.12 and later: import a namespace by its identity, its name.
import {
  to = berth_namespace.payments
  identity = {
    name = "payments"
  }
}
