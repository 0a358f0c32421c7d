package acl

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccACLTokenIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-identity-"+suffix, "berth-acc-read-identity-"+suffix
	createReadJobsPolicy(t, policy, "default")
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:     tokenAddr,
		Config:   tokenConfig(name, policy, ""),
		Identity: map[string]knownvalue.Check{"accessor_id": knownvalue.StringRegexp(uuidRe)},
		InNomad:  checkToken(t, tokenAddr, name, policy),
	})
}

// TestAccACLTokenQuery_generateConfig creates a token, forgets it, finds
// it with terraform query and requires the generated configuration to
// import it with no change.
func TestAccACLTokenQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-query-"+suffix, "berth-acc-read-query-"+suffix
	createReadJobsPolicy(t, policy, "default")
	acctest.AdoptAgain(t, fmt.Sprintf(`
resource "berth_acl_token" "t" {
  name           = %q
  policies       = [%q]
  expiration_ttl = "3h"
}`, name, policy), tokenAddr, queryByNamePrefix("berth_acl_token", name), name)
}
