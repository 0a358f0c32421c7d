# By the role's ID or its name:
terraform import berth_acl_role.web_operators web-operators
