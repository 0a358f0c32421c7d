# By name, in the provider's namespace:
terraform import berth_instance.web web

# Or namespace/name:
terraform import berth_instance.web default/web
