resource "berth_instance" "web" {
  name        = "web"
  datacenters = ["dc1"]
  replicas    = 2
  meta        = { team = "web" }

  # Lifecycle policies: leave them out for Nomad's defaults. Fields left out
  # of a block are Nomad's too.
  policies = {
    restart    = { attempts = 1, delay = "5s" }
    reschedule = { attempts = 3, interval = "1h", unlimited = false }
  }

  services = {
    # Runs to completion before the main task starts (prestart).
    migrate = {
      role    = "init"
      driver  = "exec"
      command = "/bin/sh"
      args    = ["-c", "echo migrated"]
    }
    app = {
      driver = "docker"
      image  = "nginx:1.27"
      config = jsonencode({ ports = ["http"] })
      env    = { LOG_LEVEL = "info" }
      cpu    = 200
      memory = 128
      ports  = { http = { to = 80 } }
      check  = { type = "http", port = "http", path = "/", interval = "10s", timeout = "2s" }
      # Time to finish requests after SIGINT before SIGKILL.
      policies = { kill_timeout = "30s" }
    }
    # Starts after the main task and runs beside it (poststart).
    shipper = {
      role    = "sidecar"
      driver  = "exec"
      command = "/bin/sleep"
      args    = ["infinity"]
    }
  }

  update = {
    max_parallel     = 1
    min_healthy_time = "10s"
    healthy_deadline = "5m"
  }

  # Change a value to restart the running allocations in place.
  restart_triggers = { config_version = "3" }
}
