data "berth_scheduler_settings" "this" {}

check "scheduler_running" {
  assert {
    condition     = !data.berth_scheduler_settings.this.pause_eval_broker
    error_message = "The evaluation broker is paused: Nomad schedules nothing."
  }
}
