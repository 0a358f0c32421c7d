# Terraform 1.12 and later: import a node pool by its identity, its name.
import {
  to = berth_node_pool.gpu
  identity = {
    name = "gpu"
  }
}
