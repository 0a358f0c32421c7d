# A two-group application, from the jobspec a team already runs with
# `nomad job run`. HCL2 variables come from `variables`.
resource "berth_job" "shop" {
  jobspec = file("${path.module}/shop.nomad.hcl")
  variables = {
    web_count = "2"
  }
}

# A periodic job: registered, then launched by Nomad on its schedule.
resource "berth_job" "nightly_report" {
  jobspec = <<-EOT
    job "nightly-report" {
      type = "batch"
      periodic {
        crons            = ["0 3 * * *"]
        prohibit_overlap = true
      }
      group "report" {
        task "run" {
          driver = "raw_exec"
          config {
            command = "/usr/local/bin/report"
          }
        }
      }
    }
  EOT
}

# A sysbatch job: the apply waits until it ran to completion on every
# eligible node.
resource "berth_job" "rotate_logs" {
  jobspec = <<-EOT
    job "rotate-logs" {
      type = "sysbatch"
      group "rotate" {
        task "run" {
          driver = "raw_exec"
          config {
            command = "/usr/sbin/logrotate"
            args    = ["/etc/logrotate.conf"]
          }
        }
      }
    }
  EOT
}

output "shop_drift" {
  description = "Fields changed in Nomad since the last apply (empty when none)."
  value       = berth_job.shop.drift
}
