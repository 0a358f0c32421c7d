# A web application as a team runs it on Nomad with berth:
#   - its page is rendered by Nomad from the Nomad Variable
#     nomad/jobs/<name>, which the job's tasks read without any policy;
#   - its database password never touches Terraform's plan or state (a
#     write-only attribute; Terraform 1.11 or later);
#   - it is registered in Nomad's service catalog with two health checks,
#     and every deployment waits until they pass.
#
# Store the configuration in Nomad first, then apply with the password in
# the environment:
#   nomad var put nomad/jobs/web-app greeting="Hello from Nomad" log_level=info
#   TF_VAR_db_password='...' terraform apply
#
# The "application" is Python's built-in web server on the raw_exec driver,
# so this runs on a `nomad agent -dev` without Docker.
terraform {
  required_providers {
    berth = {
      source = "berthhq/berth"
    }
  }
}

provider "berth" {}

variable "name" {
  type        = string
  default     = "web-app"
  description = "Job and service name; the configuration lives in the Nomad Variable nomad/jobs/<name>."
}

variable "db_password" {
  type        = string
  ephemeral   = true
  description = "Database password, handed to the task as DB_PASSWORD."
}

variable "db_password_version" {
  type        = number
  default     = 1
  description = "Bump it to roll out a new password: Terraform cannot see a write-only value change."
}

resource "berth_instance" "web" {
  name     = var.name
  replicas = 2
  update   = { min_healthy_time = "2s" }

  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sh"
      # The server answers from local/site, where the templates render.
      args = ["-c", <<-EOT
        if [ -n "$DB_PASSWORD" ]; then echo "database password: set"; else echo "database password: missing"; fi > local/site/status.txt
        exec /usr/bin/python3 -m http.server "$NOMAD_PORT_http" --directory local/site
      EOT
      ]
      ports  = { http = {} }
      cpu    = 100
      memory = 64

      templates = [{
        # Re-rendered whenever the Variable changes; the server reads the
        # file on every request, so nothing needs a restart.
        destination = "local/site/index.html"
        change_mode = "noop"
        data        = <<-EOT
          {{ with nomadVar "nomad/jobs/${var.name}" }}<h1>{{ .greeting }}</h1>
          <p>log level: {{ .log_level }}</p>{{ end }}
        EOT
      }]

      secret_env_wo         = { DB_PASSWORD = var.db_password }
      secret_env_wo_version = var.db_password_version

      registrations = [{
        name = var.name
        port = "http"
        tags = ["web", "public"]
        checks = [
          { name = "index", type = "http", path = "/", interval = "5s", timeout = "2s" },
          { name = "listening", type = "tcp", interval = "10s", timeout = "2s" },
        ]
      }]
    }
  }
}

output "job_version" {
  description = "The Nomad job version now running."
  value       = berth_instance.web.job_version
}
