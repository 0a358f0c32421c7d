# By the node's full ID, or by its unique name. berth then owns no
# metadata key and no drain, and destroy leaves the node as it was found.
terraform import berth_node_settings.db1 0f5a9c2e-3b7d-4e1f-8a6c-9d2b4e7f1a3c
terraform import berth_node_settings.db1 db1
