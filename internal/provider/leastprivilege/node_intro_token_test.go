package leastprivilege_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// The ephemeral berth_node_intro_token needs node write (Nomad 1.11's
// ACL.CreateClientIntroductionToken checks AllowNodeWrite, not
// management); node read is refused. The token is handed to a
// berth_variable's write-only items so the test can see it arrived; the
// Variable's own capabilities are the carrier's, not the token's.
func TestAccLeastPrivilege_nodeIntroTokenNewerNomad(t *testing.T) {
	acctest.NeedNewerNomad(t)
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	t.Parallel()
	varPath := "berth-lp/intro-" + acctest.RandomHex(4)
	carrier := `
namespace "default" {
  variables {
    path "berth-lp/*" {
      capabilities = ["read", "write", "list", "destroy"]
    }
  }
}
`
	config := fmt.Sprintf(`
ephemeral "berth_node_intro_token" "t" {
  node_name = "berth-lp-node"
  ttl       = "5m"
}

resource "berth_variable" "carrier" {
  path             = %q
  items_wo         = { jwt = ephemeral.berth_node_intro_token.t.jwt }
  items_wo_version = 1
}
`, varPath)
	nomad := acctest.Nomad(t)
	t.Cleanup(func() { _, _ = nomad.Variables().Delete(varPath, nil) })
	readOnly := leastToken(t, carrier+"node {\n  policy = \"read\"\n}\n")
	writer := leastToken(t, carrier+"node {\n  policy = \"write\"\n}\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      withToken(readOnly, config),
				ExpectError: regexp.MustCompile(`(?s)Could not create the client introduction token.*403`),
			},
			{
				Config: withToken(writer, config),
				Check: func(*terraform.State) error {
					v, _, err := nomad.Variables().Read(varPath, nil)
					if err != nil || v == nil || strings.Count(v.Items["jwt"], ".") != 2 {
						return fmt.Errorf("the carrier Variable %s holds no token (%v)", varPath, err)
					}
					return nil
				},
			},
		},
	})
}
