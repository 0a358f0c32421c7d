# By the region's name (the region the provider talks to):
terraform import berth_scheduler_settings.this global
