# Take over a nomad_scheduler_config of the hashicorp/nomad provider
# without writing to Nomad: keep its values under berth's names.
moved {
  from = nomad_scheduler_config.this
  to   = berth_scheduler_settings.this
}

resource "berth_scheduler_settings" "this" {
  scheduler_algorithm     = "spread" # was scheduler_algorithm
  memory_oversubscription = true     # was memory_oversubscription_enabled
  preemption = {                     # was preemption_config
    system   = true                  # system_scheduler_enabled
    sysbatch = false                 # sysbatch_scheduler_enabled
    batch    = false                 # batch_scheduler_enabled
    service  = true                  # service_scheduler_enabled
  }
}
