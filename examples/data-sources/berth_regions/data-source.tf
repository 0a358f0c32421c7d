data "berth_regions" "all" {}

output "regions" {
  value = data.berth_regions.all.regions
}
