package migration_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

// names are the objects' names in Nomad, different for every run.
type names struct {
	Prefix, Namespace, Pool, Policy, Role, Token, Method, Variable string
	HostVolume, HostReg, CSIVolume, CSIReg, Job                    string
	Node, HostPath, Plugin, ExternalID, Key, CSISecret             string
}

// expand fills the {{.Field}}-free placeholders: each $Field in text is
// replaced by the field's value, so the HCL below reads as HCL.
func expand(text string, n names) string {
	return strings.NewReplacer(
		"$Namespace", n.Namespace, "$Pool", n.Pool, "$Policy", n.Policy, "$Role", n.Role,
		"$Token", n.Token, "$Method", n.Method, "$Variable", n.Variable, "$HostVolume", n.HostVolume,
		"$HostReg", n.HostReg, "$CSIVolume", n.CSIVolume, "$CSIReg", n.CSIReg, "$Job", n.Job,
		"$Node", n.Node, "$HostPath", n.HostPath, "$Plugin", n.Plugin, "$ExternalID", n.ExternalID,
		"$Key", strings.ReplaceAll(n.Key, "\n", `\n`), "$CSISecret", n.CSISecret,
	).Replace(text)
}

const peerHeader = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`

// jobspec is a service job that runs on the test agent (raw_exec).
const jobspec = `
job "$Job" {
  datacenters = ["*"]
  group "web" {
    task "sleep" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}
`

// peerConfig is one of each resource berth takes over, as a user of
// hashicorp/nomad 2.6 writes it.
const peerConfig = peerHeader + `
resource "nomad_namespace" "ns" {
  name        = "$Namespace"
  description = "moved from hashicorp/nomad"
  meta        = { team = "a" }
  capabilities {
    enabled_task_drivers = ["raw_exec", "exec"]
  }
}

resource "nomad_node_pool" "pool" {
  name        = "$Pool"
  description = "moved from hashicorp/nomad"
  meta        = { team = "a" }
}

resource "nomad_acl_policy" "read" {
  name      = "$Policy"
  rules_hcl = "namespace \"default\" { policy = \"read\" }"
}

resource "nomad_acl_role" "ops" {
  name        = "$Role"
  description = "moved from hashicorp/nomad"
  policy {
    name = nomad_acl_policy.read.name
  }
}

resource "nomad_acl_token" "ci" {
  name     = "$Token"
  type     = "client"
  policies = [nomad_acl_policy.read.name]
}

resource "nomad_acl_auth_method" "jwt" {
  name           = "$Method"
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = "1h"
  config {
    jwt_validation_pub_keys = ["$Key"]
    bound_audiences         = ["berth"]
    signing_algs            = ["ES256"]
    claim_mappings          = { team = "team" }
    list_claim_mappings     = { groups = "groups" }
    expiration_leeway       = "30s"
  }
}

resource "nomad_acl_binding_rule" "ops" {
  auth_method = nomad_acl_auth_method.jwt.name
  selector    = "\"ops\" in list.groups"
  bind_type   = "role"
  bind_name   = nomad_acl_role.ops.name
}

resource "nomad_variable" "settings" {
  path  = "$Variable"
  items = { a = "1", b = "2" }
}

resource "nomad_scheduler_config" "cluster" {
  scheduler_algorithm             = "spread"
  memory_oversubscription_enabled = true
  preemption_config = {
    system_scheduler_enabled   = true
    sysbatch_scheduler_enabled = false
    batch_scheduler_enabled    = false
    service_scheduler_enabled  = true
  }
}

resource "nomad_dynamic_host_volume" "scratch" {
  name         = "$HostVolume"
  plugin_id    = "mkdir"
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
  capability {
    access_mode     = "single-node-single-writer"
    attachment_mode = "file-system"
  }
}

resource "nomad_dynamic_host_volume_registration" "data" {
  name      = "$HostReg"
  node_id   = "$Node"
  host_path = "$HostPath"
  capacity  = "1GiB"
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  parameters = { p = "1" }
}

resource "nomad_csi_volume" "disk" {
  volume_id    = "$CSIVolume"
  name         = "$CSIVolume"
  plugin_id    = "$Plugin"
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { gen = "1" }
  secrets      = { token = "$CSISecret" }
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  mount_options {
    mount_flags = ["noatime"]
  }
}

resource "nomad_csi_volume_registration" "existing" {
  volume_id    = "$CSIReg"
  name         = "$CSIReg-name"
  external_id  = "$ExternalID"
  plugin_id    = "$Plugin"
  capacity_min = "10MiB"
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  mount_options {
    fs_type = "ext4"
  }
  parameters = { p = "1" }
  context    = { origin = "berth-test" }
}

resource "nomad_job" "app" {
  jobspec = <<-EOT
` + jobspec + `
  EOT
}
`

// movedConfig is the same objects under berth: one moved block per
// resource, and each attribute that changes name or shape (the guide
// lists them) changed.
const movedConfig = peerHeader + `
moved {
  from = nomad_namespace.ns
  to   = berth_namespace.ns
}
resource "berth_namespace" "ns" {
  name         = "$Namespace"
  description  = "moved from hashicorp/nomad"
  meta         = { team = "a" }
  capabilities = { enabled_task_drivers = ["raw_exec", "exec"] }
}

moved {
  from = nomad_node_pool.pool
  to   = berth_node_pool.pool
}
resource "berth_node_pool" "pool" {
  name        = "$Pool"
  description = "moved from hashicorp/nomad"
  meta        = { team = "a" }
}

moved {
  from = nomad_acl_policy.read
  to   = berth_acl_policy.read
}
resource "berth_acl_policy" "read" {
  name  = "$Policy"
  rules = "namespace \"default\" { policy = \"read\" }"
}

moved {
  from = nomad_acl_role.ops
  to   = berth_acl_role.ops
}
resource "berth_acl_role" "ops" {
  name        = "$Role"
  description = "moved from hashicorp/nomad"
  policies    = [berth_acl_policy.read.name]
}

moved {
  from = nomad_acl_token.ci
  to   = berth_acl_token.ci
}
resource "berth_acl_token" "ci" {
  name     = "$Token"
  policies = [berth_acl_policy.read.name]
}

moved {
  from = nomad_acl_auth_method.jwt
  to   = berth_acl_auth_method.jwt
}
resource "berth_acl_auth_method" "jwt" {
  name           = "$Method"
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = "1h"
  config = {
    jwt_validation_pub_keys = ["$Key"]
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
  path  = "$Variable"
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
  name         = "$HostVolume"
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
  name         = "$HostReg"
  node_id      = "$Node"
  host_path    = "$HostPath"
  capacity     = "1GiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  parameters   = { p = "1" }
}

moved {
  from = nomad_csi_volume.disk
  to   = berth_volume.disk
}
resource "berth_volume" "disk" {
  name          = "$CSIVolume"
  type          = "csi"
  plugin_id     = "$Plugin"
  capacity_min  = "10MiB"
  capacity_max  = "20MiB"
  parameters    = { gen = "1" }
  secrets_wo    = { token = "$CSISecret" }
  capabilities  = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  mount_options = { mount_flags = ["noatime"] }
}

moved {
  from = nomad_csi_volume_registration.existing
  to   = berth_csi_volume_registration.existing
}
resource "berth_csi_volume_registration" "existing" {
  volume_id     = "$CSIReg"
  name          = "$CSIReg-name"
  external_id   = "$ExternalID"
  plugin_id     = "$Plugin"
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
` + jobspec + `
  EOT
}
`

// movedAddrs are the berth resources of movedConfig.
var movedAddrs = []string{
	"berth_namespace.ns", "berth_node_pool.pool", "berth_acl_policy.read", "berth_acl_role.ops", "berth_acl_token.ci",
	"berth_acl_auth_method.jwt", "berth_acl_binding_rule.ops", "berth_variable.settings", "berth_scheduler_settings.cluster",
	"berth_volume.scratch", "berth_host_volume_registration.data", "berth_volume.disk", "berth_csi_volume_registration.existing",
	"berth_job.app",
}

// publicKeyPEM is a fresh ECDSA P-256 public key for the JWT auth method.
func publicKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}
