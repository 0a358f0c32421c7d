# By the rule's ID (`nomad acl binding-rule list`):
terraform import berth_acl_binding_rule.web_ops 0b8b9a5e-3c2d-4f1e-8a7b-6c5d4e3f2a1b
