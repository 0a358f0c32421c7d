# A database migration that runs once per change: the apply waits until it
# has exited 0 (status "complete") and fails with its exit code and task
# events otherwise. Changing anything (here the image tag) runs it again.
resource "berth_instance" "migrate" {
  name = "shop-migrate"
  type = "batch"

  services = {
    migrate = {
      driver = "docker"
      image  = "registry.example.com/shop-migrations:2024-06-01"
      args   = ["migrate", "up"]
      env    = { DATABASE_URL = "postgres://shop@db.service.consul/shop" }
      cpu    = 200
      memory = 256
    }
  }

  timeouts = { create = "30m", update = "30m" }
}

# depends_on: the application is applied only after the migration has completed.
resource "berth_instance" "shop" {
  name       = "shop"
  depends_on = [berth_instance.migrate]

  services = {
    app = {
      driver = "docker"
      image  = "registry.example.com/shop:2024-06-01"
    }
  }
}
