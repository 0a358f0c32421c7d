package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

func TestAccInstanceIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   acctest.InstanceAddr,
		Config: acctest.InstanceConfig{Name: name}.String(),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}

func TestAccLeaseIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-lease-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_reservation.l",
		Config: fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "1h"
  workload = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
}`, name),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}

func TestAccVolumeIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vol-identity-" + acctest.RandomHex(3)
	var volID string
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_volume.v",
		Config: fmt.Sprintf(`
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringRegexp(uuidRe),
		},
		InNomad: func(s *terraform.State) error {
			volID = s.RootModule().Resources["berth_volume.v"].Primary.ID
			v, _, err := acctest.Nomad(t).HostVolumes().Get(volID, nil)
			if err != nil || v.Name != name {
				return fmt.Errorf("host volume %s in Nomad: %+v, %v; want one named %s", volID, v, err, name)
			}
			return nil
		},
	})
}

func TestAccNodeReservationIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	if acctest.MainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (its node is reserved)")
	}
	name := "identity-" + acctest.RandomHex(3)
	node := acctest.MainAgent.NodeID
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_node_reservation.r",
		Config: fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
}`, name, node),
		Identity: map[string]knownvalue.Check{
			"node_id": knownvalue.StringExact(node), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.CheckLedger(t, node, func(l ledger.Ledger) error {
			if _, ok := l.Reservations[name]; !ok {
				return fmt.Errorf("the ledger of node %s holds no reservation %q: %v", node, name, l.Reservations)
			}
			return nil
		}),
	})
}

// A berth_job records its identity, and an import block that gives only
// the identity finds it again with no change planned. The import records
// the job as Nomad holds it, a JSON jobspec; the configuration holds that
// same JSON (taken from a first registration through the API), so the
// import plans nothing.
func TestAccJobIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-job-identity-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	job, err := jobspec.Parse(jobspec.Spec{Source: twoGroupJobspec(name, 1, 16)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	live, _, err := nomad.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := jobspec.JSONOf(live)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nomad.Jobs().Deregister(name, true, nil); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("resource \"berth_job\" \"t\" {\n  format  = \"json\"\n  jobspec = %q\n}\n", asJSON)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(jobAddr, map[string]knownvalue.Check{
					"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
				})},
				Check: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
			},
			{
				Config:          config,
				ResourceName:    jobAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}

func TestAccNodePoolIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-pool-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: nodePoolAddr,
		Config: fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = "imported by identity"
  meta        = { team = "a" }
}`, name),
		Identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		InNomad:  checkNodePool(t, name, "imported by identity", map[string]string{"team": "a"}),
	})
}
