# Terraform 1.12 and later: import a binding rule by its identity, its ID.
import {
  to = berth_acl_binding_rule.web_ops
  identity = {
    id = "0b8b9a5e-3c2d-4f1e-8a7b-6c5d4e3f2a1b"
  }
}
