# Terraform 1.12 and later: import a role by its identity, Nomad's ID for it.
import {
  to = berth_acl_role.web_operators
  identity = {
    id = "6a1b7c1e-2f4d-4a8e-9c3b-5d6e7f8a9b0c"
  }
}
