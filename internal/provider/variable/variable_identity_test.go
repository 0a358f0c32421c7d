package variable_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccVariableIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   varAddr,
		Config: plainConfig(path, `{ a = "1", b = "2" }`),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "path": knownvalue.StringExact(path),
		},
		InNomad: checkItems(t, "default", path, map[string]string{"a": "1", "b": "2"}),
	})
}

// TestAccVariableQuery_listsVariables creates a Variable, forgets it, finds
// it with terraform query by namespace and path prefix, and requires the
// generated configuration to import it with no change.
func TestAccVariableQuery_listsVariables(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, plainConfig(path, `{ a = "1", b = "two" }`), varAddr, fmt.Sprintf(`list "berth_variable" "found" {
  provider         = berth
  include_resource = true
  config {
    namespace   = "default"
    path_prefix = %q
  }
}
`, path), "default/"+path)
}
