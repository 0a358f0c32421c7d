package volume

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const volumeAddr = "berth_volume.v"

func volumeConfig(name, capMax, extra string) string {
	return fmt.Sprintf(`
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = %q
  parameters   = { mode = "0755" }
  %s
}`, name, capMax, extra)
}

// withVolume reads the volume from Nomad by the ID in state.
func withVolume(t *testing.T, f func(*api.HostVolume) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[volumeAddr]
		if !ok {
			return fmt.Errorf("%s not in state", volumeAddr)
		}
		v, _, err := acctest.Nomad(t).HostVolumes().Get(rs.Primary.ID, nil)
		if err != nil {
			return fmt.Errorf("reading volume %s: %v", rs.Primary.ID, err)
		}
		return f(v)
	}
}

func checkVolumesDestroyed(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		stubs, _, err := acctest.Nomad(t).HostVolumes().List(nil, nil)
		if err != nil {
			return err
		}
		for _, s := range stubs {
			if s.Name == name {
				return fmt.Errorf("volume %q (%s) still exists after destroy", name, s.ID)
			}
		}
		return nil
	}
}

func TestAccVolume_lifecycle(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vol-" + acctest.RandomHex(3)
	var firstID string
	testVolume(t, name, []resource.TestStep{
		{
			Config:           volumeConfig(name, "20MiB", ""),
			ConfigPlanChecks: createsVolume(plannedIs(volumeAddr, "namespace", knownvalue.StringExact("default"))),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs(volumeAddr, "state", knownvalue.StringExact("ready")),
				stateIs(volumeAddr, "plugin_id", knownvalue.StringExact("mkdir")),
				stateIs(volumeAddr, "allocations", knownvalue.ListSizeExact(0)),
			},
			Check: withVolume(t, func(v *api.HostVolume) error {
				firstID = v.ID
				if v.State != "ready" || v.RequestedCapacityMaxBytes != 20<<20 || v.Parameters["mode"] != "0755" {
					return fmt.Errorf("volume in Nomad: state %s, max %d, params %v", v.State, v.RequestedCapacityMaxBytes, v.Parameters)
				}
				fi, err := os.Stat(v.HostPath)
				if err != nil {
					return fmt.Errorf("host path %s: %v", v.HostPath, err)
				}
				if !fi.IsDir() || fi.Mode().Perm() != 0o755 {
					return fmt.Errorf("host path %s: dir %v, mode %v; want a 0755 directory", v.HostPath, fi.IsDir(), fi.Mode().Perm())
				}
				return nil
			}),
		},
		{
			// Capacity changes in place.
			Config: volumeConfig(name, "30MiB", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionUpdate),
			}},
			Check: withVolume(t, func(v *api.HostVolume) error {
				if v.ID != firstID || v.RequestedCapacityMaxBytes != 30<<20 {
					return fmt.Errorf("volume %s max %d; want %s updated in place to 30MiB", v.ID, v.RequestedCapacityMaxBytes, firstID)
				}
				return nil
			}),
		},
		{
			// The same size in other units is no change.
			Config: volumeConfig(name, "30720KiB", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				acctest.ExpectNoChanges{},
			}},
		},
		{
			// The data source finds it by name and by ID.
			Config: volumeConfig(name, "30MiB", "") + fmt.Sprintf(`
data "berth_volume" "by_name" { name = %q }
data "berth_volume" "by_id" { id = berth_volume.v.id }`, name),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPair("data.berth_volume.by_name", "id", volumeAddr, "id"),
				resource.TestCheckResourceAttrPair("data.berth_volume.by_id", "host_path", volumeAddr, "host_path"),
				resource.TestCheckResourceAttr("data.berth_volume.by_name", "capacity_max_bytes", fmt.Sprint(30<<20)),
				resource.TestCheckResourceAttr("data.berth_volume.by_name", "state", "ready"),
				resource.TestCheckResourceAttr("data.berth_volume.by_name", "parameters.mode", "0755"),
			),
		},
		{
			ResourceName:            volumeAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts", "capacity_max"},
		},
		{
			ResourceName:            volumeAddr,
			ImportState:             true,
			ImportStateId:           "default/" + name,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts", "capacity_max"},
		},
		{
			// Deleted out of band: the next plan creates it again.
			PreConfig: func() {
				if _, _, err := acctest.Nomad(t).HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: firstID}, nil); err != nil {
					t.Fatal(err)
				}
			},
			Config:           volumeConfig(name, "30MiB", ""),
			ConfigPlanChecks: createsVolume(),
			Check: withVolume(t, func(v *api.HostVolume) error {
				if v.ID == firstID || v.State != "ready" {
					return fmt.Errorf("want a new ready volume, got %s (%s)", v.ID, v.State)
				}
				return nil
			}),
		},
	})
}

func TestVolume_badInputIsRejectedAtPlan(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown mkdir parameter", `parameters = { mode = "0755", size = "1G" }`, `(?s)Unknown mkdir parameter.*"size"`},
		{"bad unit", `capacity_max = "10 gigs"`, `(?s)Invalid size.*10 gigs`},
		{"min above max", "capacity_min = \"2GiB\"\ncapacity_max = \"1GiB\"", `(?s)capacity_max below capacity_min`},
		{"min without max", `capacity_min = "10MiB"`, `(?s)capacity_min needs capacity_max.*at least 10MiB`},
		{"bad access mode", `access_mode = "everyone"`, `(?s)access_mode value must be one of`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acctest.ExpectPlanRejects(t, `resource "berth_volume" "v" {
  name = "bad"
  `+tc.body+`
}`, tc.want)
		})
	}
}

// Constraints reach Nomad as written, read back the same (an operator
// without a value included), and plan no change afterwards.
func TestAccVolume_constraints(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-volc-" + acctest.RandomHex(3)
	config := fmt.Sprintf(`
resource "berth_volume" "v" {
  name        = %q
  constraints = [
    { attribute = "$${attr.kernel.name}", value = "linux" },
    { attribute = "$${attr.unique.hostname}", operator = "is_set" },
  ]
}`, name)
	testVolume(t, name, []resource.TestStep{
		{
			Config:           config,
			ConfigPlanChecks: createsVolume(),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs(volumeAddr, "constraints", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"attribute": knownvalue.StringExact("${attr.kernel.name}"),
						"operator": knownvalue.StringExact("="), "value": knownvalue.StringExact("linux")}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"attribute": knownvalue.StringExact("${attr.unique.hostname}"),
						"operator": knownvalue.StringExact("is_set"), "value": knownvalue.Null()}),
				})),
			},
			Check: withVolume(t, func(v *api.HostVolume) error {
				got := fmt.Sprint(len(v.Constraints))
				for _, c := range v.Constraints {
					got += fmt.Sprintf(" [%s %s %q]", c.LTarget, c.Operand, c.RTarget)
				}
				if want := `2 [${attr.kernel.name} = "linux"] [${attr.unique.hostname} is_set ""]`; got != want {
					return fmt.Errorf("constraints in Nomad: %s, want %s", got, want)
				}
				return nil
			}),
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				acctest.ExpectNoChanges{},
			}},
		},
		{
			ResourceName:            volumeAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
	})
}

// Sizes are read the way Nomad reads them: "20M" and "20MB" are 20×10⁶
// bytes (the same size, so no change), "20Mi" is 20×2²⁰.
func TestAccVolume_sizeSpellings(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vol-" + acctest.RandomHex(3)
	maxIs := func(want int64) resource.TestCheckFunc {
		return withVolume(t, func(v *api.HostVolume) error {
			if v.RequestedCapacityMaxBytes != want {
				return fmt.Errorf("volume %s in Nomad: requested max %d bytes, want %d", v.ID, v.RequestedCapacityMaxBytes, want)
			}
			return nil
		})
	}
	testVolume(t, name, []resource.TestStep{
		{
			Config: volumeConfig(name, "20M", ""),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs(volumeAddr, "capacity_max", knownvalue.StringExact("20M")),
			},
			Check: maxIs(20_000_000),
		},
		{
			Config:           volumeConfig(name, "20MB", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}},
			Check:            maxIs(20_000_000),
		},
		{
			Config:           volumeConfig(name, "20000 kb", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}},
		},
		{
			Config: volumeConfig(name, "20Mi", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionUpdate),
			}},
			Check: maxIs(20 << 20),
		},
	})
}

// Spellings Nomad's parser would misread or that make no whole bytes are
// rejected at plan, before anything reaches Nomad.
func TestVolume_sizeSpellingsRejectedAtPlan(t *testing.T) {
	for _, tc := range []struct{ name, size, want string }{
		{"comma", "1,5GiB", `(?s)Invalid size.*comma`},
		{"fraction of a byte", "1.3B", `(?s)Invalid size.*whole number of bytes`},
		{"unknown unit", "1ZB", `(?s)Invalid size.*1ZB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctest.ExpectPlanRejects(t, fmt.Sprintf(`resource "berth_volume" "v" {
  name         = "bad"
  capacity_max = %q
}`, tc.size), tc.want)
		})
	}
}

// testVolume runs steps against the provider under test, then checks
// that Nomad has no volume called name any more.
func testVolume(t *testing.T, name string, steps []resource.TestStep) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkVolumesDestroyed(t, name),
		Steps:                    steps,
	})
}

// createsVolume expects the step's plan to create the volume, and to
// pass checks too.
func createsVolume(checks ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: append([]plancheck.PlanCheck{
		plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionCreate)}, checks...)}
}
