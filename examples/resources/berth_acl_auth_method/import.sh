# By the method's name (a method with an OIDC client assertion cannot be imported):
terraform import berth_acl_auth_method.sso sso
