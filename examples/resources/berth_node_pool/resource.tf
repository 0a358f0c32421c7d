# A pool for GPU nodes. Nodes join it through their agent configuration
# (client { node_pool = "gpu" }); jobs are placed into it by name.
resource "berth_node_pool" "gpu" {
  name        = "gpu"
  description = "Nodes with an NVIDIA GPU"
  meta = {
    team = "ml"
  }
}

resource "berth_instance" "trainer" {
  name      = "trainer"
  node_pool = berth_node_pool.gpu.name
  services = {
    train = {
      driver  = "exec"
      command = "/usr/local/bin/train"
      cpu     = 2000
      memory  = 4096
    }
  }
}
