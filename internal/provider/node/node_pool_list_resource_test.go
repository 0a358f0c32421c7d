package node

import (
	"fmt"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodePoolQuery_generateConfig creates a pool, forgets it, finds it
// with terraform query and requires the generated configuration to import
// it with no change.
func TestAccNodePoolQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-pool-query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = "found by query"
  meta        = { team = "a", tier = "gpu" }
}`, name), nodePoolAddr, fmt.Sprintf(`list "berth_node_pool" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name), name)
}

// TestAccNodePoolQuery_leavesOutBuiltIn: Nomad's built-in pools cannot be
// managed, so a query never offers them.
func TestAccNodePoolQuery_leavesOutBuiltIn(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c, ctx := acctest.NewQueryCLI(t)
	c.Init(ctx, `provider "berth" {}`)
	res := acctest.RunQuery(ctx, t, c, `list "berth_node_pool" "default" {
  provider = berth
  config {
    name_prefix = "default"
  }
}

list "berth_node_pool" "all" {
  provider = berth
  config {
    name_prefix = "all"
  }
}
`)
	if len(res.Found) != 0 {
		t.Fatalf("query found %v; want Nomad's built-in pools left out", res.Found)
	}
}
