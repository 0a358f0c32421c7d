# A parameterized job: registered by berth_job, run by dispatching it.
resource "berth_job" "thumbnail" {
  jobspec = <<-EOT
    job "thumbnail" {
      type = "batch"
      parameterized {
        payload       = "optional"
        meta_required = ["image"]
      }
      group "convert" {
        task "run" {
          driver = "raw_exec"
          config {
            command = "/usr/local/bin/thumbnail"
            args    = ["$${NOMAD_META_image}"]
          }
        }
      }
    }
  EOT
}

# Terraform 1.14 and later. Run it on demand:
#   terraform apply -invoke=action.berth_job_dispatch.thumbnail
action "berth_job_dispatch" "thumbnail" {
  config {
    name = berth_job.thumbnail.name
    meta = { image = "s3://photos/2026/11/cat.jpg" }
    wait = true
  }
}
