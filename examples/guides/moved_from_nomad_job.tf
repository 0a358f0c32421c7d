# Before: the other Nomad provider registered the job.
#
# resource "nomad_job" "shop" {
#   jobspec = file("${path.module}/shop.nomad.hcl")
#   hcl2 {
#     vars = { web_count = "2" }
#   }
# }

# After: the same jobspec under berth_job, and a moved block. The plan
# changes nothing in Nomad; the job keeps its version and modify index.
moved {
  from = nomad_job.shop
  to   = berth_job.shop
}

resource "berth_job" "shop" {
  jobspec = file("${path.module}/shop.nomad.hcl")
  variables = {
    web_count = "2"
  }
}
