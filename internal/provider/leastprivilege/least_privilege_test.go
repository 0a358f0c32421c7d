// Package leastprivilege_test proves the ACL capabilities each resource's
// docs name are enough: every test makes a token holding only that policy,
// applies, re-plans (empty) and destroys with it, and checks in Nomad with
// the management token.
package leastprivilege_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// leastToken registers a policy with rules and a client token holding only
// it, both removed when the test ends, and returns the token's secret.
func leastToken(t *testing.T, rules string) string {
	t.Helper()
	nomad := acctest.Nomad(t)
	name := "berth-lp-" + acctest.RandomHex(4)
	if _, err := nomad.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
		t.Fatalf("registering policy %s: %v", name, err)
	}
	tok, _, err := nomad.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{name}}, nil)
	if err != nil {
		t.Fatalf("creating a token for %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = nomad.ACLTokens().Delete(tok.AccessorID, nil)
		_, _ = nomad.ACLPolicies().Delete(name, nil)
	})
	return tok.SecretID
}

// withToken is config with a provider block that uses token.
func withToken(token, config string) string {
	return fmt.Sprintf("provider \"berth\" {\n  token = %q\n}\n%s", token, config)
}

// applyWithLeast applies config with a token holding only rules, checks
// inNomad after the apply, re-plans (empty) and destroys with that token,
// then checks gone.
func applyWithLeast(t *testing.T, rules, config string, inNomad, gone resource.TestCheckFunc) {
	t.Helper()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             gone,
		Steps:                    []resource.TestStep{{Config: withToken(leastToken(t, rules), config), Check: inNomad}},
	})
}

// jobPolicy is what berth_job, berth_instance and berth_reservation need
// in the namespace they write to: register and plan (submit-job), read the
// job, its allocations, evaluations and deployments (read-job, list-jobs),
// and node:read to name the nodes allocations are on.
const jobPolicy = `
namespace "default" {
  capabilities = ["submit-job", "read-job", "list-jobs"]
}
node {
  policy = "read"
}
`

func TestAccLeastPrivilege_job(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-lp-job-" + acctest.RandomHex(3)
	applyWithLeast(t, jobPolicy, fmt.Sprintf(`
resource "berth_job" "j" {
  jobspec = <<-EOT
    job %q {
      group "g" {
        task "t" {
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
  EOT
}`, name), jobRuns(t, name), jobGone(t, name))
}

func TestAccLeastPrivilege_instance(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-lp-inst-" + acctest.RandomHex(3)
	applyWithLeast(t, jobPolicy, fmt.Sprintf(`
resource "berth_instance" "i" {
  name     = %q
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
  }
}`, name), jobRuns(t, name), jobGone(t, name))
}

func TestAccLeastPrivilege_reservation(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-lp-lease-" + acctest.RandomHex(3)
	applyWithLeast(t, jobPolicy, fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "1h"
  workload = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
}`, name), jobRuns(t, name), jobGone(t, name))
}

// berth_node_pool needs write on the pools it manages (a name pattern
// keeps the token to them).
func TestAccLeastPrivilege_nodePool(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-lp-pool-" + acctest.RandomHex(3)
	token := leastToken(t, `
node_pool "berth-lp-pool-*" {
  policy = "write"
}
`)
	nomad := acctest.Nomad(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if p, _, err := nomad.NodePools().Info(name, nil); err == nil && p != nil {
				return fmt.Errorf("node pool %s still in Nomad", name)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = "least privilege"
}`, name)),
			Check: func(*terraform.State) error {
				p, _, err := nomad.NodePools().Info(name, nil)
				if err != nil {
					return err
				}
				if p.Description != "least privilege" {
					return fmt.Errorf("pool %s has description %q", name, p.Description)
				}
				return nil
			},
		}},
	})
}

// berth_node_settings needs node:write (metadata, eligibility, drain) and
// list-jobs and read-job in every namespace, to name the allocations and
// leases a drain moves, and read on the reservation ledger (a drain counts
// reserved capacity).
func TestAccLeastPrivilege_nodeSettings(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nodeID := acctest.ReadyNodeID(t)
	key := "berth_lp_" + acctest.RandomHex(3)
	token := leastToken(t, `
node {
  policy = "write"
}
namespace "*" {
  capabilities = ["list-jobs", "read-job"]
}
namespace "default" {
  variables {
    path "berth/nodes/*" {
      capabilities = ["read"]
    }
  }
}
`)
	nomad := acctest.Nomad(t)
	meta := func(want bool) func(*terraform.State) error {
		return func(*terraform.State) error {
			n, _, err := nomad.Nodes().Info(nodeID, nil)
			if err != nil {
				return err
			}
			if _, ok := n.Meta[key]; ok != want {
				return fmt.Errorf("node %s meta %q present=%t, want %t", nodeID, key, ok, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             meta(false),
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_node_settings" "n" {
  node_id = %q
  meta    = { %s = "yes" }
}`, nodeID, key)),
			Check: meta(true),
		}},
	})
}

// berth_volume (host volumes) needs host-volume-write in its namespace
// (Nomad 1.10 accepts no host-volume-delete on its own: write is create,
// register, read and delete) and node:read to place the volume.
func TestAccLeastPrivilege_volume(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-lp-vol-" + acctest.RandomHex(3)
	token := leastToken(t, `
namespace "default" {
  capabilities = ["host-volume-write"]
}
node {
  policy = "read"
}
`)
	nomad := acctest.Nomad(t)
	find := func() (*api.HostVolumeStub, error) {
		vols, _, err := nomad.HostVolumes().List(&api.HostVolumeListRequest{}, nil)
		if err != nil {
			return nil, err
		}
		for _, v := range vols {
			if v.Name == name {
				return v, nil
			}
		}
		return nil, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if v, err := find(); err != nil || v != nil {
				return fmt.Errorf("volume %s after destroy: %+v (%v)", name, v, err)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name)),
			Check: func(*terraform.State) error {
				if v, err := find(); err != nil || v == nil {
					return fmt.Errorf("volume %s not in Nomad (%v)", name, err)
				}
				return nil
			},
		}},
	})
}

// berth_node_reservation needs the ledger's Variables (berth/nodes/*, in
// ledger_namespace), the job capabilities for its hold job and node:read.
func TestAccLeastPrivilege_nodeReservation(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nodeID := acctest.ReadyNodeID(t)
	name := "lp-" + acctest.RandomHex(4)
	token := leastToken(t, `
namespace "default" {
  capabilities = ["submit-job", "read-job", "list-jobs"]
  variables {
    path "berth/nodes/*" {
      capabilities = ["read", "write", "list", "destroy"]
    }
  }
}
node {
  policy = "read"
}
`)
	held := func(want bool) func(*terraform.State) error {
		return func(*terraform.State) error {
			l, _ := acctest.ReadLedger(t, nodeID)
			if _, ok := l.Reservations[name]; ok != want {
				return fmt.Errorf("reservation %q in the ledger of %s: %t, want %t", name, nodeID, ok, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             held(false),
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 1
}`, name, nodeID)),
			Check: held(true),
		}},
	})
}

// The node data sources need node:read, list-jobs and read-job in every
// namespace (what allocations, leases and holds take on each node) and read
// on the reservation ledger. berth_cluster is not here: Nomad
// answers its Raft configuration to a management token only.
func TestAccLeastPrivilege_dataSources(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	token := leastToken(t, `
node {
  policy = "read"
}
namespace "*" {
  capabilities = ["list-jobs", "read-job"]
}
namespace "default" {
  variables {
    path "berth/nodes/*" {
      capabilities = ["read"]
    }
  }
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: withToken(token, `
data "berth_nodes" "all" {}
`),
			Check: resource.TestCheckResourceAttrWith("data.berth_nodes.all", "nodes.#", func(v string) error {
				if v == "0" {
					return fmt.Errorf("berth_nodes found no node with a node:read token")
				}
				return nil
			}),
		}},
	})
}

// berth_variable needs read, write, list and destroy on its path (a
// pattern keeps the token to the paths it manages).
func TestAccLeastPrivilege_variable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	varPath := "berth-lp/" + acctest.RandomHex(4)
	token := leastToken(t, `
namespace "default" {
  variables {
    path "berth-lp/*" {
      capabilities = ["read", "write", "list", "destroy"]
    }
  }
}
`)
	nomad := acctest.Nomad(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if v, _, err := nomad.Variables().Peek(varPath, nil); err != nil || v != nil {
				return fmt.Errorf("variable %s after destroy: %v (%v)", varPath, v, err)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_variable" "v" {
  path  = %q
  items = { owner = "platform" }
}`, varPath)),
			Check: func(*terraform.State) error {
				v, _, err := nomad.Variables().Peek(varPath, nil)
				if err != nil || v == nil || v.Items["owner"] != "platform" {
					return fmt.Errorf("variable %s in Nomad: %v (%v)", varPath, v, err)
				}
				return nil
			},
		}},
	})
}

// jobRuns checks that the job is in Nomad.
func jobRuns(t *testing.T, name string) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil })
}

// jobGone checks that the job is no longer in Nomad (purged).
func jobGone(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		j, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
		if err == nil && j != nil && (j.Stop == nil || !*j.Stop) {
			return fmt.Errorf("job %s still running in Nomad", name)
		}
		return nil
	}
}
