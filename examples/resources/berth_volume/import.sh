# By volume ID:
terraform import berth_volume.pgdata 4f3c1a2b-5d6e-7f80-9a1b-2c3d4e5f6a7b

# Or by name (namespace/name, or just name in the provider's namespace),
# when the name is unique in the namespace:
terraform import berth_volume.pgdata default/pgdata

# A CSI volume imports by its ID (or its name, when unique in the namespace):
terraform import berth_volume.shared default/shared-disk
