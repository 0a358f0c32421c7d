package variable_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func writeOnlyConfig(path, pw string, version int) string {
	return fmt.Sprintf(`
resource "berth_variable" "v" {
  path             = %q
  items            = { user = "app" }
  items_wo         = { password = %q, token = "t-1" }
  items_wo_version = %d
}`, path, pw, version)
}

// TestAccVariable_writeOnlyDrift: write-only items reach Nomad and state
// keeps only their keys; a secret item deleted through the API shows in
// items_wo_keys, a secret value changed through the API shows as
// items_wo_in_sync going back to true, and each apply puts the
// configuration back; a new version writes the new value.
func TestAccVariable_writeOnlyDrift(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/wo-" + acctest.RandomHex(3)
	want := func(pw string) map[string]string {
		return map[string]string{"user": "app", "password": pw, "token": "t-1"}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		CheckDestroy:             checkGone(t, "default", path),
		Steps: []resource.TestStep{
			{
				Config: writeOnlyConfig(path, "pw-1", 1),
				Check: resource.ComposeTestCheckFunc(checkItems(t, "default", path, want("pw-1")),
					resource.TestCheckNoResourceAttr(varAddr, "items_wo"),
					resource.TestCheckResourceAttr(varAddr, "items.%", "1"),
					resource.TestCheckResourceAttr(varAddr, "items_wo_keys.#", "2"),
					resource.TestCheckResourceAttr(varAddr, "items_wo_in_sync", "true")),
			},
			{
				// A secret item deleted in Nomad: its key is missing.
				PreConfig: func() { writeVar(t, "default", path, map[string]string{"user": "app", "token": "t-1"}) },
				Config:    writeOnlyConfig(path, "pw-1", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionUpdate),
					expectBefore{varAddr, "items_wo_keys", `["token"]`},
				}},
				Check: checkItems(t, "default", path, want("pw-1")),
			},
			{
				// A secret value changed in Nomad: berth sees a write that is not its own.
				PreConfig: func() { writeVar(t, "default", path, want("changed-outside")) },
				Config:    writeOnlyConfig(path, "pw-1", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionUpdate),
					expectBefore{varAddr, "items_wo_in_sync", `false`},
					expectBefore{varAddr, "items_wo_keys", `["password","token"]`},
				}},
				Check: checkItems(t, "default", path, want("pw-1")),
			},
			{Config: writeOnlyConfig(path, "pw-1", 1), PlanOnly: true},
			{
				// Same version, new value: berth cannot see it and writes nothing.
				Config: writeOnlyConfig(path, "pw-ignored", 1), PlanOnly: true,
			},
			{
				Config: writeOnlyConfig(path, "pw-2", 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkItems(t, "default", path, want("pw-2")),
			},
		},
	})
}
