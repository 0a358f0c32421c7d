# Allocations of one job that are not running.
data "berth_allocations" "web_trouble" {
  job    = "web"
  filter = "ClientStatus != \"running\""
}

output "web_failures" {
  value = {
    for a in data.berth_allocations.web_trouble.allocations :
    a.id => { for name, t in a.tasks : name => t.last_event_message if t.failed }
  }
}
