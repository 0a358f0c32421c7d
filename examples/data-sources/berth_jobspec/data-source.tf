# The job a jobspec describes, as this cluster's parser reads it, without
# registering anything.
data "berth_jobspec" "web" {
  hcl          = file("${path.module}/web.nomad.hcl")
  variables    = { image = "nginx:1.27" }
  canonicalize = true # Nomad's defaults filled in
}

output "web_groups" {
  value = [for g in jsondecode(data.berth_jobspec.web.json).TaskGroups : "${g.Name}: ${g.Count}"]
}
