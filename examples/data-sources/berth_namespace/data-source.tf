data "berth_namespace" "payments" {
  name = "payments"
}

output "payments_drivers" {
  value = data.berth_namespace.payments.capabilities
}
