# Datacenters with a node up, whose names start with "eu-".
data "berth_datacenters" "eu" {
  prefix            = "eu-"
  ignore_down_nodes = true
}

output "eu_datacenters" {
  value = data.berth_datacenters.eu.datacenters
}
