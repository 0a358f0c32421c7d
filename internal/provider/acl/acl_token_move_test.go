package acl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLTokenMoved_fromNomadACLToken: a token created by the other
// provider's nomad_acl_token (which keeps its secret in state) moves to
// berth_acl_token: the plan changes nothing, the token in Nomad is the
// same one with its settings, and berth's state no longer holds the
// secret anywhere.
func TestAccACLTokenMoved_fromNomadACLToken(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-moved-"+suffix, "berth-acc-read-moved-"+suffix
	createReadJobsPolicy(t, policy, "default")
	head := `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	peer := head + fmt.Sprintf(`
resource "nomad_acl_token" "t" {
  name     = %q
  type     = "client"
  policies = [%q]
}
`, name, policy)
	moved := head + `
moved {
  from = nomad_acl_token.t
  to   = berth_acl_token.t
}
` + tokenConfig(name, policy, "")
	var accessor, secret string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkTokenGone(t, &accessor, ""),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(s *terraform.State) error {
					a := s.RootModule().Resources["nomad_acl_token.t"].Primary.Attributes
					accessor, secret = a["accessor_id"], a["secret_id"]
					if accessor == "" || len(secret) < 32 {
						return fmt.Errorf("nomad_acl_token did not record accessor and secret (the test would prove nothing)")
					}
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(checkToken(t, tokenAddr, name, policy),
					func(s *terraform.State) error {
						got, err := tokenFromState(s, tokenAddr)
						if err != nil || got != accessor {
							return fmt.Errorf("berth_acl_token holds accessor %q (%v); want the moved token's %q", got, err, accessor)
						}
						for addr, rs := range s.RootModule().Resources {
							for k, v := range rs.Primary.Attributes {
								if strings.Contains(v, secret) {
									return fmt.Errorf("the token's secret is in state at %s.%s", addr, k)
								}
							}
						}
						return nil
					}),
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
