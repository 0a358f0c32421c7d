variable "web_count" {
  type    = number
  default = 1
}

job "shop" {
  group "web" {
    count = var.web_count
    network {
      port "http" {}
    }
    task "server" {
      driver = "raw_exec"
      config {
        command = "/usr/bin/python3"
        args    = ["-m", "http.server", "${NOMAD_PORT_http}"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }

  group "worker" {
    task "run" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["infinity"]
      }
    }
  }
}
