# A job registered by anyone (berth_job, `nomad job run`, another provider).
data "berth_job" "api" {
  job_id    = "api"
  namespace = "apps" # the provider's namespace when unset
}

output "api_job" {
  value = {
    status  = data.berth_job.api.status
    version = data.berth_job.api.version
    groups  = { for g in data.berth_job.api.task_groups : g.name => g.count }
    # Any field Nomad holds, typed or not, through the job's JSON.
    update = jsondecode(data.berth_job.api.json).Update
  }
}
