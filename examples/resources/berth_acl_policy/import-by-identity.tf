# Terraform 1.12 and later: import a policy by its identity, its name.
import {
  to = berth_acl_policy.web_read
  identity = {
    name = "web-read"
  }
}
