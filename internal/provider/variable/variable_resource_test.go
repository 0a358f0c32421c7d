package variable_test

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const varAddr = "berth_variable.v"

// readVar reads a Variable from Nomad (nil when there is none).
func readVar(t *testing.T, namespace, path string) *api.Variable {
	t.Helper()
	v, _, err := acctest.Nomad(t).Variables().Read(path, &api.QueryOptions{Namespace: namespace})
	if errors.Is(err, api.ErrVariablePathNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("reading Variable %s: %v", path, err)
	}
	return v
}

// writeVar replaces a Variable's items through the API (no check-and-set),
// as someone outside Terraform would.
func writeVar(t *testing.T, namespace, path string, items map[string]string) {
	t.Helper()
	_, _, err := acctest.Nomad(t).Variables().Create(&api.Variable{Namespace: namespace, Path: path, Items: items},
		&api.WriteOptions{Namespace: namespace})
	if err != nil {
		t.Fatalf("writing Variable %s through the API: %v", path, err)
	}
}

// checkItems asserts the items Nomad holds at path.
func checkItems(t *testing.T, namespace, path string, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		v := readVar(t, namespace, path)
		if v == nil {
			return fmt.Errorf("Nomad has no Variable %s in namespace %s", path, namespace)
		}
		if v.Namespace != namespace || !maps.Equal(map[string]string(v.Items), want) {
			return fmt.Errorf("Nomad holds %s in namespace %q with %d items, want %d (%v)", path, v.Namespace, len(v.Items), len(want), maps.Equal(map[string]string(v.Items), want))
		}
		return nil
	}
}

// checkGone is a CheckDestroy: Nomad has no Variable at path.
func checkGone(t *testing.T, namespace, path string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if v := readVar(t, namespace, path); v != nil {
			return fmt.Errorf("Variable %s is still in Nomad after destroy (modify index %d)", path, v.ModifyIndex)
		}
		return nil
	}
}

func plainConfig(path, items string) string {
	return fmt.Sprintf(`
resource "berth_variable" "v" {
  path  = %q
  items = %s
}`, path, items)
}

// TestAccVariable_lifecycle: create, assert in Nomad; drift made through
// the API (a changed item, an added one) is named in the plan by key, its
// values kept out (they may be secrets), and put back; an import records
// every key with its value withheld and plans one write that makes the
// configured items plain; destroy leaves nothing.
func TestAccVariable_lifecycle(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/var-" + acctest.RandomHex(3)
	cfg := plainConfig(path, `{ host = "db.internal", port = "5432" }`)
	want := map[string]string{"host": "db.internal", "port": "5432"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkGone(t, "default", path),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(checkItems(t, "default", path, want),
					resource.TestCheckResourceAttr(varAddr, "id", "default/"+path),
					resource.TestCheckResourceAttr(varAddr, "namespace", "default"),
					resource.TestCheckResourceAttr(varAddr, "items_wo_in_sync", "true"),
					resource.TestCheckNoResourceAttr(varAddr, "items_wo_keys")),
			},
			{
				PreConfig: func() {
					writeVar(t, "default", path, map[string]string{"host": "elsewhere", "port": "5432", "extra": "x"})
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(varAddr, tfjsonpath.New("items"), knownvalue.MapExact(map[string]knownvalue.Check{
						"host": knownvalue.StringExact("db.internal"), "port": knownvalue.StringExact("5432")})),
					expectBefore{varAddr, "items", `{"port":"5432"}`},
					expectBefore{varAddr, "items_wo_keys", `["extra","host"]`},
					expectNowhere{"elsewhere", `"x"`},
				}},
				Check: checkItems(t, "default", path, want),
			},
			{Config: cfg, PlanOnly: true},
			{
				Config: cfg, ResourceName: varAddr, ImportState: true, ImportStateId: "default/" + path,
				ImportStateCheck: importedWithheld("host", "port"),
			},
			{
				Config: cfg, ResourceName: varAddr, ImportState: true, ImportStateId: path,
				ImportStateCheck: importedWithheld("host", "port"),
			},
		},
	})
}

// TestAccVariable_namespaceAndDataSource: a Variable in another namespace,
// and the data source's metadata (keys, indexes), never values.
func TestAccVariable_namespaceAndDataSource(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	ns := "berth-acc-varns-" + acctest.RandomHex(3)
	c := acctest.Nomad(t)
	if _, err := c.Namespaces().Register(&api.Namespace{Name: ns}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Namespaces().Delete(ns, nil) })
	path := "app/config"
	cfg := fmt.Sprintf(`
resource "berth_variable" "v" {
  path      = %q
  namespace = %q
  items     = { b = "2", a = "1" }
}

data "berth_variable" "d" {
  path      = berth_variable.v.path
  namespace = berth_variable.v.namespace
}`, path, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkGone(t, ns, path),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(checkItems(t, ns, path, map[string]string{"a": "1", "b": "2"}),
					resource.TestCheckResourceAttr("data.berth_variable.d", "keys.#", "2"),
					resource.TestCheckResourceAttr("data.berth_variable.d", "keys.0", "a"),
					resource.TestCheckResourceAttr("data.berth_variable.d", "keys.1", "b"),
					resource.TestCheckResourceAttr("data.berth_variable.d", "id", ns+"/"+path),
					resource.TestCheckResourceAttrPair("data.berth_variable.d", "modify_index", varAddr, "modify_index"),
					resource.TestCheckNoResourceAttr("data.berth_variable.d", "items"),
					resource.TestCheckResourceAttrSet("data.berth_variable.d", "modify_time")),
			},
			// "<namespace>/<path>" where the path has a slash too.
			{Config: cfg, ResourceName: varAddr, ImportState: true, ImportStateId: ns + "/" + path,
				ImportStateCheck: importedWithheld("a", "b")},
		},
	})
}

// TestAccVariable_badInput: each mistake is one diagnostic at validate,
// before Nomad is asked.
func TestAccVariable_badInput(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{Config: plainConfig("nomad/other", `{ a = "1" }`), PlanOnly: true, ExpectError: regexp.MustCompile(`under the reserved top-level`)},
			{Config: plainConfig("a.b", `{ a = "1" }`), PlanOnly: true, ExpectError: regexp.MustCompile(`Invalid Variable path`)},
			{Config: plainConfig("ok/path", `{}`), PlanOnly: true, ExpectError: regexp.MustCompile(`Variable without items`)},
			{Config: `
resource "berth_variable" "v" {
  path             = "ok/path"
  items            = { a = "1", b = "2" }
  items_wo         = { b = "s", c = "t" }
  items_wo_version = 1
}`, PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Item both plain and write-only.*"b" are in both`)},
			{Config: `
resource "berth_variable" "v" {
  path     = "ok/path"
  items_wo = { c = "t" }
}`, PlanOnly: true, ExpectError: regexp.MustCompile(`items_wo needs items_wo_version`)},
		},
	})
}
