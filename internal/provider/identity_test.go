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

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// identityCase is one resource's identity test: its configuration, the
// identity it must record, and a check in Nomad that the imported object
// is the one created.
type identityCase struct {
	addr     string
	config   string
	identity map[string]knownvalue.Check
	inNomad  resource.TestCheckFunc
}

// testIdentity creates the resource, checks the identity Terraform
// recorded, then imports it again through an import block that gives
// only the identity, and requires that import to plan no change.
func testIdentity(t *testing.T, c identityCase) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: c.config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(c.addr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(c.addr, c.identity)},
				Check:             c.inNomad,
			},
			{
				Config:          c.config,
				ResourceName:    c.addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(c.addr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}

func TestAccInstanceIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := "berth-acc-identity-" + randomHex(3)
	testIdentity(t, identityCase{
		addr:   instanceAddr,
		config: instanceConfig{name: name}.String(),
		identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		inNomad: withJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}

func TestAccLeaseIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := "berth-acc-lease-identity-" + randomHex(3)
	testIdentity(t, identityCase{
		addr: "berth_reservation.l",
		config: fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "1h"
  workload = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
}`, name),
		identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		inNomad: withJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}

func TestAccVolumeIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := "berth-acc-vol-identity-" + randomHex(3)
	var volID string
	testIdentity(t, identityCase{
		addr: "berth_volume.v",
		config: fmt.Sprintf(`
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name),
		identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringRegexp(uuidRe),
		},
		inNomad: func(s *terraform.State) error {
			volID = s.RootModule().Resources["berth_volume.v"].Primary.ID
			v, _, err := testNomad(t).HostVolumes().Get(volID, nil)
			if err != nil || v.Name != name {
				return fmt.Errorf("host volume %s in Nomad: %+v, %v; want one named %s", volID, v, err, name)
			}
			return nil
		},
	})
}

func TestAccNodeReservationIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	if mainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (its node is reserved)")
	}
	name := "identity-" + randomHex(3)
	node := mainAgent.NodeID
	testIdentity(t, identityCase{
		addr: "berth_node_reservation.r",
		config: fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
}`, name, node),
		identity: map[string]knownvalue.Check{
			"node_id": knownvalue.StringExact(node), "name": knownvalue.StringExact(name),
		},
		inNomad: checkLedger(t, node, func(l ledger.Ledger) error {
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
	testAccPreCheck(t)
	name := "berth-acc-job-identity-" + randomHex(3)
	nomad := testNomad(t)
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
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(jobAddr, map[string]knownvalue.Check{
					"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
				})},
				Check: withJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
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
	testAccPreCheck(t)
	name := "berth-acc-pool-identity-" + randomHex(3)
	testIdentity(t, identityCase{
		addr: nodePoolAddr,
		config: fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = "imported by identity"
  meta        = { team = "a" }
}`, name),
		identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		inNomad:  checkNodePool(t, name, "imported by identity", map[string]string{"team": "a"}),
	})
}
