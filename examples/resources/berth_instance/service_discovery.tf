# A web service registered twice in Nomad's service catalog: the public
# endpoint with two checks, and an admin endpoint on another port. The
# deployment waits for all four checks to pass; a check that keeps failing
# fails the apply, naming the check.
resource "berth_instance" "web" {
  name = "web"

  services = {
    app = {
      driver  = "exec"
      command = "/usr/local/bin/web"
      args    = ["--listen", ":$${NOMAD_PORT_http}", "--admin", ":$${NOMAD_PORT_admin}"]
      ports   = { http = {}, admin = {} }

      registrations = [
        {
          name        = "web"
          port        = "http"
          tags        = ["public", "v2"]
          canary_tags = ["canary"]
          meta        = { team = "storefront" }
          checks = [
            {
              name     = "ready"
              type     = "http"
              path     = "/ready"
              method   = "GET"
              header   = { X-Health-Probe = ["nomad"] }
              interval = "5s"
              timeout  = "2s"
              # Restart the task after 3 consecutive failures, once it
              # has had 30s to start.
              check_restart = { limit = 3, grace = "30s" }
            },
            { name = "listening", type = "tcp", interval = "10s", timeout = "2s" },
          ]
        },
        {
          name = "web-admin"
          port = "admin"
          tags = ["internal"]
          checks = [
            { name = "admin", type = "http", path = "/healthz", interval = "10s", timeout = "2s" },
            { name = "admin-port", type = "tcp", interval = "10s", timeout = "2s", on_update = "ignore" },
          ]
        },
      ]
    }
  }
}

# Other jobs find it through Nomad's service discovery, for example in a
# template: {{ range nomadService "web" }}{{ .Address }}:{{ .Port }}{{ end }}
