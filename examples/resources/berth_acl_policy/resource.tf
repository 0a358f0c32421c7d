# Read access to the "web" namespace, for tokens and roles.
resource "berth_acl_policy" "web_read" {
  name        = "web-read"
  description = "Read jobs and logs in web"
  rules       = <<-EOT
    namespace "web" {
      policy       = "read"
      capabilities = ["read-logs"]
    }
  EOT
}

# Every job in the "web" namespace may read the "shared/*" variables of
# that namespace (namespace-wide job_acl: no job_id).
resource "berth_acl_policy" "web_workloads" {
  name  = "web-workloads"
  rules = <<-EOT
    namespace "web" {
      variables {
        path "shared/*" {
          capabilities = ["read"]
        }
      }
    }
  EOT
  job_acl = {
    namespace = "web"
  }
}
