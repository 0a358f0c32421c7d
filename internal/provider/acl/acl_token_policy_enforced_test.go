package acl

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLToken_enforcedWithBerthPolicy: the end-to-end check, all
// in berth: a berth_acl_policy granting read on the jobs of a namespace made
// by berth_namespace, and a berth_acl_token holding it, whose secret (read
// from the Variable it was written to) lists jobs there and is refused
// registering one, as Nomad itself answers.
func TestAccACLToken_enforcedWithBerthPolicy(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	ns, name, varPath := "berth-acc-enf-"+suffix, "berth-acc-enf-"+suffix, "berth-acc/enf-"+suffix
	config := fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name = %[1]q
}

resource "berth_acl_policy" "read" {
  name  = %[2]q
  rules = <<-EOT
    namespace %[1]q {
      capabilities = ["list-jobs", "read-job"]
    }
  EOT
  depends_on = [berth_namespace.ns]
}

resource "berth_acl_token" "t" {
  name                 = %[2]q
  policies             = [berth_acl_policy.read.name]
  secret_variable_path = %[3]q
}
`, ns, name, varPath)
	var accessor string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeTestCheckFunc(checkTokenGone(t, &accessor, varPath), checkACLPolicyGone(t, name)),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				var err error
				if accessor, err = tokenFromState(s, tokenAddr); err != nil {
					return err
				}
				secret, err := secretInVariable(t, tokenAddr, varPath)
				if err != nil {
					return err
				}
				return checkEnforced(t, secret, ns)
			},
		}},
	})
}
