# By volume ID (namespace/volume_id, or just volume_id in the provider's namespace):
terraform import berth_csi_volume_registration.pgdata default/pgdata
