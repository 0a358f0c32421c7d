# Terraform 1.12 and later: import an auth method by its identity, its name.
import {
  to = berth_acl_auth_method.sso
  identity = {
    name = "sso"
  }
}
