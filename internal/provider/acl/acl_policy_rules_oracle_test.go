package acl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy/aclpolicytest"
)

// TestAccACLPolicyRules_agreeWithNomad registers every rule text of the
// checker's table on the ACL agent: berth's checker must accept exactly
// the texts Nomad accepts. Nomad is the oracle; the table is in
// aclpolicytest so the unit test checks berth's words for the same texts.
func TestAccACLPolicyRules_agreeWithNomad(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	c := acctest.Nomad(t)
	if len(aclpolicytest.Cases) < 40 {
		t.Fatalf("the table has %d cases; it must cover the policy language with at least 40", len(aclpolicytest.Cases))
	}
	accepted, refused := 0, 0
	for i, tc := range aclpolicytest.Cases {
		name := fmt.Sprintf("berth-oracle-%d", i)
		_, nomadErr := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: tc.Rules}, nil)
		if nomadErr == nil {
			accepted++
			if _, err := c.ACLPolicies().Delete(name, nil); err != nil {
				t.Errorf("%s: deleting the oracle's policy: %v", tc.Name, err)
			}
		} else {
			refused++
			if !strings.Contains(nomadErr.Error(), "400") && !strings.Contains(strings.ToLower(nomadErr.Error()), "invalid") &&
				!strings.Contains(nomadErr.Error(), "parse") {
				t.Fatalf("%s: Nomad failed for another reason than the rules: %v", tc.Name, nomadErr)
			}
		}
		berthErr := aclpolicy.CheckRules(tc.Rules)
		switch {
		case nomadErr == nil && berthErr != nil:
			t.Errorf("%s: Nomad accepts the rules, berth refuses them: %v", tc.Name, berthErr)
		case nomadErr != nil && berthErr == nil:
			t.Errorf("%s: Nomad refuses the rules (%v), berth accepts them", tc.Name, nomadErr)
		case (nomadErr == nil) != (tc.Refusal == ""):
			t.Errorf("%s: the table says refused=%v, Nomad says %v", tc.Name, tc.Refusal != "", nomadErr)
		}
	}
	t.Logf("Nomad accepted %d and refused %d rule texts; berth agreed on each", accepted, refused)
}
