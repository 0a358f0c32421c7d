# By the pool's name (Nomad's built-in pools "all" and "default" cannot be imported):
terraform import berth_node_pool.gpu gpu
