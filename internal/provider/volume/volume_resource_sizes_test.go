package volume

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

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
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkVolumesDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: volumeConfig(name, "20M", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(volumeAddr, tfjsonpath.New("capacity_max"), knownvalue.StringExact("20M")),
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
