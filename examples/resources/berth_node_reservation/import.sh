# <node_id>/<name>; a unique node ID prefix is enough:
terraform import berth_node_reservation.db 77e393ef/postgres-headroom
