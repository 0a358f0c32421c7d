terraform {
  required_providers {
    berth = {
      source = "berthhq/berth"
    }
  }
}

# Every setting falls back to the Nomad CLI's environment variable
# (NOMAD_ADDR, NOMAD_TOKEN, NOMAD_CACERT, ...); values here win.
provider "berth" {
  address   = "https://nomad.example.com:4646"
  namespace = "default"
  ca_file   = "/etc/nomad.d/tls/ca.pem"
  # token = var.nomad_token  # or NOMAD_TOKEN
}
