# Secrets that never touch Terraform's plan or state (Terraform 1.11 or
# later). An ephemeral variable (or an ephemeral resource) feeds the
# write-only secret_env_wo; berth writes it to the Nomad Variable
# nomad/jobs/shop/app/web, which only the web task may read, and the task
# sees DATABASE_PASSWORD in its environment.
variable "database_password" {
  type      = string
  ephemeral = true
}

resource "berth_instance" "shop" {
  name = "shop"

  services = {
    web = {
      driver = "docker"
      image  = "registry.example.com/shop:2024-06-01"
      env    = { DATABASE_URL = "postgres://shop@db.service.consul/shop" }

      secret_env_wo = { DATABASE_PASSWORD = var.database_password }
      # Terraform cannot see a write-only value change: bump the version to
      # write the new value and roll the allocations.
      secret_env_wo_version = 1
    }
  }
}
