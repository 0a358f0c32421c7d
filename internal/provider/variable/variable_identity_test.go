package variable_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccVariableIdentity_importByIdentity records the identity, then
// imports by identity alone. Unlike acctest.CheckIdentity the import plans
// an update: berth imports every item with its value withheld (it cannot
// know which were secret), and the write makes the configured items plain.
func TestAccVariableIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/identity-" + acctest.RandomHex(3)
	cfg := plainConfig(path, `{ a = "1", b = "2" }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkGone(t, "default", path),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(varAddr, map[string]knownvalue.Check{
					"namespace": knownvalue.StringExact("default"), "path": knownvalue.StringExact(path),
				})},
				Check: checkItems(t, "default", path, map[string]string{"a": "1", "b": "2"}),
			},
			{
				Config: cfg, ResourceName: varAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity,
				// The import plans the update that makes the items plain.
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionUpdate),
					expectBefore{varAddr, "items_wo_keys", `["a","b"]`},
				}},
			},
		},
	})
}

// TestAccVariableQuery_listsVariables creates a Variable, forgets it, and
// finds it with terraform query by namespace and path prefix. The
// generated configuration names the Variable and holds none of its
// values: berth cannot know which items were secret.
func TestAccVariableQuery_listsVariables(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/query-" + acctest.RandomHex(3)
	c, ctx := acctest.NewQueryCLI(t)
	c.Init(ctx, plainConfig(path, `{ a = "1", b = "two-value" }`))
	c.MustApply(ctx, "create")
	t.Cleanup(func() { deleteVar(t, "default", path) })
	if err := c.TF.StateRm(ctx, varAddr); err != nil {
		t.Fatalf("terraform state rm: %v\n%s", err, c.Out.Take())
	}
	c.Write(`provider "berth" {}`)
	res := acctest.RunQuery(ctx, t, c, fmt.Sprintf(`list "berth_variable" "found" {
  provider         = berth
  include_resource = true
  config {
    namespace   = "default"
    path_prefix = %q
  }
}
`, path))
	if len(res.Found) != 1 || !strings.Contains(res.Found[0], "default/"+path) {
		t.Fatalf("query found %v, want only default/%s", res.Found, path)
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), path) || strings.Contains(string(b), "two-value") {
		t.Fatalf("the generated configuration should name %s and hold no value:\n%s", path, b)
	}
}
