package cluster

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// checkList requires the list attribute key of ds to be want, in order.
func checkList(s *terraform.State, ds, key string, want []string) error {
	attrs := s.RootModule().Resources[ds].Primary.Attributes
	var got []string
	for i := range len(want) + 1 {
		if v, ok := attrs[fmt.Sprintf("%s.%d", key, i)]; ok {
			got = append(got, v)
		}
	}
	if attrs[key+".#"] != fmt.Sprint(len(want)) || strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("%s.%s = %v (count %s), want %v", ds, key, got, attrs[key+".#"], want)
	}
	return nil
}

// TestAccRegionsDataSource_asNomadSays compares berth_regions with
// Nomad's region list.
func TestAccRegionsDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `data "berth_regions" "r" {}`,
			Check: func(s *terraform.State) error {
				regions, err := acctest.Nomad(t).Regions().List()
				if err != nil {
					return err
				}
				sort.Strings(regions)
				return checkList(s, "data.berth_regions.r", "regions", regions)
			},
		}},
	})
}

// TestAccDatacentersDataSource_prefixAndDownNodes compares
// berth_datacenters with the datacenters of Nomad's nodes: all of them,
// those of nodes that are not down, and by prefix (one that matches the
// test agent's datacenter, one that matches nothing).
func TestAccDatacentersDataSource_prefixAndDownNodes(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	prefix := devagent.DefaultDatacenter[:2]
	config := fmt.Sprintf(`
data "berth_datacenters" "all" {}

data "berth_datacenters" "up" {
  ignore_down_nodes = true
}

data "berth_datacenters" "prefixed" {
  prefix = %q
}

data "berth_datacenters" "none" {
  prefix = "no-such-datacenter-"
}
`, prefix)
	fromNomad := func(prefix string, ignoreDown bool) ([]string, error) {
		nodes, _, err := acctest.Nomad(t).Nodes().List(nil)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, n := range nodes {
			if strings.HasPrefix(n.Datacenter, prefix) && (!ignoreDown || n.Status != api.NodeStatusDown) {
				set[n.Datacenter] = true
			}
		}
		out := []string{}
		for dc := range set {
			out = append(out, dc)
		}
		sort.Strings(out)
		return out, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				for _, c := range []struct {
					ds, prefix string
					ignoreDown bool
				}{{"all", "", false}, {"up", "", true}, {"prefixed", prefix, false}, {"none", "no-such-datacenter-", false}} {
					want, err := fromNomad(c.prefix, c.ignoreDown)
					if err != nil {
						return err
					}
					if c.ds == "prefixed" && len(want) == 0 {
						return fmt.Errorf("no node's datacenter starts with %q: the test agent's is %q", prefix, devagent.DefaultDatacenter)
					}
					if err := checkList(s, "data.berth_datacenters."+c.ds, "datacenters", want); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	})
}
