package acl

import (
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccACLPolicyIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-policy-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:     aclPolicyAddr,
		Config:   aclPolicyConfig(name, "imported by identity", readDefaultRules, `{ namespace = "default", job_id = "web" }`),
		Identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		InNomad:  checkACLPolicy(t, name, "imported by identity", readDefaultRules, &api.JobACL{Namespace: "default", JobID: "web"}),
	})
}

// TestAccACLPolicyQuery_generateConfig creates a policy, forgets it, finds
// it with terraform query and requires the generated configuration to
// import it with no change.
func TestAccACLPolicyQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-policy-query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, aclPolicyConfig(name, "found by query", readDefaultRules, `{ namespace = "default" }`), aclPolicyAddr,
		queryByNamePrefix("berth_acl_policy", name), name)
}
