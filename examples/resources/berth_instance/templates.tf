# A web application whose binary is downloaded and unpacked by Nomad (an
# artifact, checked against its checksum, unpacked into local/) and whose configuration file is rendered
# by Nomad from the Nomad Variable nomad/jobs/web, which the task reads
# without any policy. Written, for example, with
#   nomad var put nomad/jobs/web listen=:8080 log_level=info
# a change to the Variable re-renders the file and restarts the task.
resource "berth_instance" "web" {
  name = "web"

  services = {
    app = {
      driver  = "exec"
      command = "local/web"
      args    = ["-config", "local/web.conf"]
      ports   = { http = { static = 8080 } }

      artifacts = [{
        source  = "https://releases.example.com/web/1.4.2/web_linux_amd64.tar.gz"
        options = { checksum = "sha256:6f1c2b0c4f1d3e5a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a" }
      }]

      templates = [
        {
          # Nomad's template syntax is {{ }}, which Terraform leaves alone.
          data        = <<-EOT
            {{ with nomadVar "nomad/jobs/web" }}
            listen    = "{{ .listen }}"
            log_level = "{{ .log_level }}"
            {{ end }}
          EOT
          destination = "local/web.conf"
          change_mode = "restart"
        },
        {
          # An env file: its KEY=value lines join the task's environment.
          data        = "UPSTREAMS={{ range nomadService \"api\" }}{{ .Address }}:{{ .Port }},{{ end }}\n"
          destination = "local/upstreams.env"
          env         = true
        },
      ]
    }
  }
}
