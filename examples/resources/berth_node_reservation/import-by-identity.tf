# Terraform 1.12 and later: import a node reservation by its identity.
# node_id may be a unique prefix of the node's ID.
import {
  to = berth_node_reservation.db
  identity = {
    node_id = "5d3c1b2a"
    name    = "db"
  }
}
