# The region's scheduler configuration. Attributes left out take Nomad's
# defaults; destroy puts back the configuration berth found.
resource "berth_scheduler_settings" "this" {
  scheduler_algorithm     = "spread"
  memory_oversubscription = true

  preemption = {
    system  = true
    service = true
  }
}
