package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// IdentityCase is one resource's identity test: its configuration, the
// identity it must record, and a check in Nomad that the imported object
// is the one created.
type IdentityCase struct {
	Addr     string
	Config   string
	Identity map[string]knownvalue.Check
	InNomad  resource.TestCheckFunc
}

// CheckIdentity creates the resource, checks the identity Terraform
// recorded, then imports it again through an import block that gives
// only the identity, and requires that import to plan no change.
func CheckIdentity(t *testing.T, c IdentityCase) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: c.Config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(c.Addr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(c.Addr, c.Identity)},
				Check:             c.InNomad,
			},
			{
				Config:          c.Config,
				ResourceName:    c.Addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(c.Addr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}
