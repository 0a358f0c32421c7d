package acl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLTokensDataSource_noSecrets lists a token made through the API
// by its name prefix: accessor, type and policies, and its secret nowhere
// in state.
func TestAccACLTokensDataSource_noSecrets(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-ds-"+suffix, "berth-acc-read-ds-"+suffix
	createReadJobsPolicy(t, policy, "default")
	c := acctest.Nomad(t)
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{policy}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.ACLTokens().Delete(tok.AccessorID, nil) })
	const addr = "data.berth_acl_tokens.found"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_acl_tokens" "found" {
  name_prefix = %q
}
`, name),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "tokens.#", "1"),
				resource.TestCheckResourceAttr(addr, "tokens.0.accessor_id", tok.AccessorID),
				resource.TestCheckResourceAttr(addr, "tokens.0.name", name),
				resource.TestCheckResourceAttr(addr, "tokens.0.type", "client"),
				resource.TestCheckResourceAttr(addr, "tokens.0.policies.0", policy),
				func(s *terraform.State) error {
					for k, v := range s.RootModule().Resources[addr].Primary.Attributes {
						if strings.Contains(v, tok.SecretID) {
							return fmt.Errorf("the token's secret is in state at %s", k)
						}
					}
					return nil
				},
			),
		}},
	})
}
