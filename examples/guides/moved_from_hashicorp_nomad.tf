# One of each hashicorp/nomad resource, after the move to berth. Each
# moved block names the old address; keep hashicorp/nomad in
# required_providers until this is applied.
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
    nomad = { source = "hashicorp/nomad" }
  }
}

variable "csi_token" {
  type      = string
  sensitive = true
}

moved {
  from = nomad_namespace.ns
  to   = berth_namespace.ns
}
resource "berth_namespace" "ns" {
  name         = "shop"
  description  = "moved from hashicorp/nomad"
  meta         = { team = "a" }
  capabilities = { enabled_task_drivers = ["raw_exec", "exec"] }
}

moved {
  from = nomad_node_pool.pool
  to   = berth_node_pool.pool
}
resource "berth_node_pool" "pool" {
  name        = "batch"
  description = "moved from hashicorp/nomad"
  meta        = { team = "a" }
}

moved {
  from = nomad_acl_policy.read
  to   = berth_acl_policy.read
}
resource "berth_acl_policy" "read" {
  name  = "read-default"
  rules = "namespace \"default\" { policy = \"read\" }"
}

moved {
  from = nomad_acl_role.ops
  to   = berth_acl_role.ops
}
resource "berth_acl_role" "ops" {
  name        = "operators"
  description = "moved from hashicorp/nomad"
  policies    = [berth_acl_policy.read.name]
}

moved {
  from = nomad_acl_token.ci
  to   = berth_acl_token.ci
}
resource "berth_acl_token" "ci" {
  name     = "ci"
  policies = [berth_acl_policy.read.name]
}

moved {
  from = nomad_acl_auth_method.jwt
  to   = berth_acl_auth_method.jwt
}
resource "berth_acl_auth_method" "jwt" {
  name           = "ci-jwt"
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = "1h"
  config = {
    jwt_validation_pub_keys = [file("jwt.pub")]
    bound_audiences         = ["berth"]
    signing_algs            = ["ES256"]
    claim_mappings          = { team = "team" }
    list_claim_mappings     = { groups = "groups" }
    expiration_leeway       = "30s"
  }
}

moved {
  from = nomad_acl_binding_rule.ops
  to   = berth_acl_binding_rule.ops
}
resource "berth_acl_binding_rule" "ops" {
  auth_method = berth_acl_auth_method.jwt.name
  selector    = "\"ops\" in list.groups"
  bind_type   = "role"
  bind_name   = berth_acl_role.ops.name
}

moved {
  from = nomad_variable.settings
  to   = berth_variable.settings
}
resource "berth_variable" "settings" {
  path  = "shop/settings"
  items = { a = "1", b = "2" }
}

moved {
  from = nomad_scheduler_config.cluster
  to   = berth_scheduler_settings.cluster
}
resource "berth_scheduler_settings" "cluster" {
  scheduler_algorithm     = "spread"
  memory_oversubscription = true
  preemption              = { service = true }
}

moved {
  from = nomad_dynamic_host_volume.scratch
  to   = berth_volume.scratch
}
resource "berth_volume" "scratch" {
  name         = "scratch"
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
  access_mode  = "single-node-single-writer"
}

moved {
  from = nomad_dynamic_host_volume_registration.data
  to   = berth_host_volume_registration.data
}
resource "berth_host_volume_registration" "data" {
  name         = "data"
  node_id      = "4f1c3b2a-0000-4000-8000-000000000001"
  host_path    = "/srv/data"
  capacity     = "1GiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  parameters   = { p = "1" }
}

moved {
  from = nomad_csi_volume.disk
  to   = berth_volume.disk
}
resource "berth_volume" "disk" {
  name          = "disk"
  type          = "csi"
  plugin_id     = "ebs"
  capacity_min  = "10MiB"
  capacity_max  = "20MiB"
  parameters    = { gen = "1" }
  secrets_wo    = { token = var.csi_token }
  capabilities  = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  mount_options = { mount_flags = ["noatime"] }
}

moved {
  from = nomad_csi_volume_registration.existing
  to   = berth_csi_volume_registration.existing
}
resource "berth_csi_volume_registration" "existing" {
  volume_id     = "existing"
  name          = "existing-name"
  external_id   = "vol-0123456789abcdef0"
  plugin_id     = "ebs"
  capacity_min  = "10MiB"
  capabilities  = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  mount_options = { fs_type = "ext4" }
  parameters    = { p = "1" }
  context       = { origin = "berth-test" }
}

moved {
  from = nomad_job.app
  to   = berth_job.app
}
resource "berth_job" "app" {
  jobspec = <<-EOT
job "shop" {
  datacenters = ["*"]
  group "web" {
    task "sleep" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
  EOT
}
