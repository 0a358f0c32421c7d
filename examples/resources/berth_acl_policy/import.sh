# By the policy's name:
terraform import berth_acl_policy.web_read web-read
