# Placement: where the allocations may run and which nodes they prefer.
# Node attributes are written $${...} so Terraform leaves them to Nomad.
resource "berth_instance" "api" {
  name     = "api"
  replicas = 3

  # A task group named other than "app", e.g. kept from an imported job.
  group = "api"

  placement = {
    constraints = [
      # Only Linux nodes with an ssd (operator "=" when unset).
      { attribute = "$${attr.kernel.name}", value = "linux" },
      { attribute = "$${meta.disk}", value = "ssd" },
      # At most two allocations per rack.
      { attribute = "$${meta.rack}", operator = "distinct_property", value = "2" },
      # Docker 24 or later.
      { attribute = "$${attr.driver.docker.version}", operator = "semver", value = ">= 24.0.0" },
    ]

    # Prefer nodes of the "compute" class; avoid spot nodes where possible.
    affinities = [
      { attribute = "$${node.class}", value = "compute", weight = 60 },
      { attribute = "$${meta.lifecycle}", value = "spot", weight = -80 },
    ]

    # Two thirds of the allocations in dc1, the rest in dc2.
    spreads = [{
      attribute = "$${node.datacenter}"
      weight    = 100
      targets = [
        { value = "dc1", percent = 67 },
        { value = "dc2", percent = 33 },
      ]
    }]
  }

  services = {
    app = {
      driver = "docker"
      image  = "ghcr.io/example/api:1.4"
      cpu    = 200
      memory = 256
    }
  }
}
