# Terraform 1.14 and later: start the lease over for its full duration.
#   terraform apply -invoke=action.berth_reservation_renew.ci_runner
action "berth_reservation_renew" "ci_runner" {
  config {
    name = berth_reservation.ci_runner.name
  }
}
