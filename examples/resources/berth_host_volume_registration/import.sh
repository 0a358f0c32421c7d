# By volume ID (namespace/id, or just id in the provider's namespace):
terraform import berth_host_volume_registration.pgdata default/8f3c2a1e-4b5d-6e7f-8091-a2b3c4d5e6f7
