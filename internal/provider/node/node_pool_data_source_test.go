package node

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodePoolDataSource_matchesNomad: a pool registered through the
// API reads as Nomad holds it (read back through the API), a built-in
// pool reads too, and a missing pool is one error that names it.
func TestAccNodePoolDataSource_matchesNomad(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nomad := acctest.Nomad(t)
	name := "berth-acc-dp-" + acctest.RandomHex(3)
	p := &api.NodePool{Name: name, Description: "read by name", Meta: map[string]string{"team": "t1", "tier": "gold"}}
	if _, err := nomad.NodePools().Register(p, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = nomad.NodePools().Delete(name, nil) })
	got, _, err := nomad.NodePools().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]knownvalue.Check{}
	for k, v := range got.Meta {
		meta[k] = knownvalue.StringExact(v)
	}
	const ds = "data.berth_node_pool.p"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
data "berth_node_pool" "p" {
  name = %q
}
data "berth_node_pool" "builtin" {
  name = "default"
}
`, name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact(got.Name)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("description"), knownvalue.StringExact(got.Description)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("meta"), knownvalue.MapExact(meta)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("scheduler_algorithm"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("memory_oversubscription"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.berth_node_pool.builtin", tfjsonpath.New("name"), knownvalue.StringExact("default")),
				},
			},
			{
				Config: fmt.Sprintf(`
data "berth_node_pool" "missing" {
  name = %q
}
`, name+"-missing"),
				ExpectError: regexp.MustCompile(`Node pool not found[\s\S]*` + regexp.QuoteMeta(name+"-missing")),
			},
		},
	})
}
