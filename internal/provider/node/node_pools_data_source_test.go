package node

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodePoolsDataSource_matchesNomad: two pools registered through the
// API are listed by prefix, each as Nomad holds it (read back through the
// API), and the built-in pools are listed without a prefix.
func TestAccNodePoolsDataSource_matchesNomad(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nomad := acctest.Nomad(t)
	prefix := "berth-acc-dsp-" + acctest.RandomHex(3)
	for i, desc := range []string{"first", ""} {
		name := fmt.Sprintf("%s-%d", prefix, i)
		p := &api.NodePool{Name: name, Description: desc, Meta: map[string]string{"team": fmt.Sprint("t", i)}}
		if _, err := nomad.NodePools().Register(p, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = nomad.NodePools().Delete(name, nil) })
	}
	const ds = "data.berth_node_pools.p"
	fromNomad := func(i int) map[string]knownvalue.Check {
		p, _, err := nomad.NodePools().Info(fmt.Sprintf("%s-%d", prefix, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		meta := map[string]knownvalue.Check{}
		for k, v := range p.Meta {
			meta[k] = knownvalue.StringExact(v)
		}
		return map[string]knownvalue.Check{
			"name": knownvalue.StringExact(p.Name), "description": knownvalue.StringExact(p.Description),
			"meta": knownvalue.MapExact(meta), "scheduler_algorithm": knownvalue.Null(), "memory_oversubscription": knownvalue.Null(),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_node_pools" "p" {
  name_prefix = %q
}
data "berth_node_pools" "all" {}
`, prefix),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("pools"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(fromNomad(0)), knownvalue.ObjectExact(fromNomad(1)),
				})),
				statecheck.ExpectKnownValue("data.berth_node_pools.all", tfjsonpath.New("names"),
					knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact("all"), knownvalue.StringExact("default")})),
			},
		}},
	})
}
