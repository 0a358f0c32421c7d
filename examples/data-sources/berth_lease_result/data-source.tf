# Check that the cluster itself vouches for a lease's result: Nomad's
# keyring signed it for this lease's timer.
data "berth_lease_result" "gpu" {
  lease_id  = berth_reservation.gpu.id
  signature = berth_reservation.gpu.result.signature
}

check "lease_answered_by_the_cluster" {
  assert {
    condition     = data.berth_lease_result.gpu.valid
    error_message = "The lease result does not verify: ${data.berth_lease_result.gpu.problem}"
  }
}
