package node

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccNodeDataSource_lookup(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	node := acctest.MainNode(t, acctest.Nomad(t))
	checks := func(addr string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(node.ID)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact(node.Name)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("ready")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("meta"), knownvalue.MapSizeExact(len(node.Meta))),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("events"), knownvalue.ListPartial(map[int]knownvalue.Check{
				0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"message": knownvalue.NotNull()}),
			})),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_node" "by_id"     { id = %q }
data "berth_node" "by_prefix" { id = %q }
data "berth_node" "by_name"   { name = %q }
`, node.ID, node.ID[:8], node.Name),
			ConfigStateChecks: append(append(checks("data.berth_node.by_id"), checks("data.berth_node.by_prefix")...), checks("data.berth_node.by_name")...),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.berth_node.by_id", "status_description", node.StatusDescription),
				resource.TestCheckTypeSetElemNestedAttrs("data.berth_node.by_id", "drivers_detail.*", map[string]string{
					"name": "raw_exec", "detected": "true", "healthy": "true",
				}),
				resource.TestCheckTypeSetElemNestedAttrs("data.berth_node.by_id", "drivers_detail.*", map[string]string{
					"name": "exec", "detected": "true", "healthy": "true",
				}),
				resource.TestCheckResourceAttr("data.berth_node.by_id", "events.#", fmt.Sprint(len(node.Events))),
			),
		}},
	})
}

func TestAccNodeDataSource_notFound(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      `data "berth_node" "x" { id = "ffffffff-0000-dead-beef-000000000000" }`,
				ExpectError: regexp.MustCompile(`(?s)Nomad node not found.*no Nomad node has id\s+"ffffffff-0000-dead-beef-000000000000"`),
			},
			{
				Config:      `data "berth_node" "x" { name = "no-such-node-berth" }`,
				ExpectError: regexp.MustCompile(`(?s)no Nomad node has name\s+"no-such-node-berth"`),
			},
			{
				Config:      `data "berth_node" "x" {}`,
				ExpectError: regexp.MustCompile(`(?s)Missing Attribute Configuration.*Exactly one of these attributes must be configured`),
			},
			{
				Config:      `data "berth_node" "x" {` + "\n" + `id = "abc"` + "\n" + `name = "abc"` + "\n}",
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination`),
			},
		},
	})
}

func TestAccNodeDataSource_ambiguous(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	idRe := func(a string) string { return regexp.QuoteMeta(a) }
	both := fmt.Sprintf(`(?s)%s.*%s|%s.*%s`, idRe(first(f.Twins[0].NodeID, f.Twins[1].NodeID)), idRe(second(f.Twins[0].NodeID, f.Twins[1].NodeID)),
		idRe(f.Twins[0].NodeID), idRe(f.Twins[1].NodeID))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      fmt.Sprintf(`data "berth_node" "x" { id = %q }`, f.TwinPrefix),
				ExpectError: regexp.MustCompile(`(?s)Nomad node lookup is ambiguous.*2 Nomad nodes match id.*(` + both + `)`),
			},
			{
				Config:      fmt.Sprintf(`data "berth_node" "x" { name = %q }`, f.TwinName),
				ExpectError: regexp.MustCompile(`(?s)2 Nomad nodes match name.*(` + both + `)`),
			},
			{
				// A prefix long enough to be unique resolves.
				Config: fmt.Sprintf(`data "berth_node" "x" { id = %q }`, f.Twins[1].NodeID[:13]),
				Check:  resource.TestCheckResourceAttr("data.berth_node.x", "id", f.Twins[1].NodeID),
			},
		},
	})
}

func first(a, b string) string {
	if a < b {
		return a
	}
	return b
}

func second(a, b string) string {
	if a < b {
		return b
	}
	return a
}

// TestAccNodeDataSource_capacity runs real work on a node no other test
// uses and checks allocated and free against the job's own numbers; the
// min_free filter accepts an exact fit and rejects one MHz more.
func TestAccNodeDataSource_capacity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	c := acctest.Nomad(t)
	nodeID := f.Capacity.NodeID
	jobID := "berth-acc-capacity-" + acctest.RandomHex(3)

	const count, cpu, mem, disk = 2, 150, 96, 160
	job := &api.Job{
		ID: &jobID, Name: &jobID, Type: acctest.Ptr("service"), NodePool: &f.CapPool, Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name:          acctest.Ptr("g"),
			Count:         acctest.Ptr(count),
			EphemeralDisk: &api.EphemeralDisk{SizeMB: acctest.Ptr(disk)},
			Tasks: []*api.Task{{
				Name: "sleep", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(cpu), MemoryMB: acctest.Ptr(mem)},
			}},
		}},
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("registering job: %v", err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(jobID, true, nil) })
	acctest.WaitFor(t, "two running allocations on the capacity node", 2*time.Minute, func() (bool, error) {
		allocs, _, err := c.Jobs().Allocations(jobID, false, nil)
		if err != nil {
			return false, err
		}
		running := 0
		for _, a := range allocs {
			if a.ClientStatus == "running" && a.NodeID == nodeID {
				running++
			}
		}
		return running == count, fmt.Errorf("%d of %d running", running, count)
	})

	acpu, amem, adisk := acctest.AllocatableOf(acctest.APINode(t, c, nodeID))
	wantAlloc := map[string]int64{"cpu": count * cpu, "memory": count * mem, "disk": count * disk}
	wantFree := map[string]int64{"cpu": acpu - count*cpu, "memory": amem - count*mem, "disk": adisk - count*disk}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_node" "cap" { id = %[1]q }
data "berth_nodes" "exact" {
  node_pool = %[2]q
  min_free  = { cpu = %[3]d, memory = %[4]d, disk = %[5]d }
}
data "berth_nodes" "one_more" {
  node_pool = %[2]q
  min_free  = { cpu = %[6]d }
}
`, nodeID, f.CapPool, wantFree["cpu"], wantFree["memory"], wantFree["disk"], wantFree["cpu"]+1),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.berth_node.cap", "allocation_count", fmt.Sprint(count)),
				resource.TestCheckResourceAttr("data.berth_nodes.exact", "nodes.#", "1"),
				resource.TestCheckResourceAttr("data.berth_nodes.exact", "nodes.0.id", nodeID),
				resource.TestCheckResourceAttr("data.berth_nodes.one_more", "nodes.#", "0"),
				func(s *terraform.State) error {
					for k, v := range wantAlloc {
						if err := acctest.CheckAttrInt(s, "data.berth_node.cap", "allocated."+k, v); err != nil {
							return err
						}
						if err := acctest.CheckAttrInt(s, "data.berth_nodes.exact", "nodes.0.allocated."+k, v); err != nil {
							return err
						}
					}
					for k, v := range wantFree {
						if err := acctest.CheckAttrInt(s, "data.berth_node.cap", "free."+k, v); err != nil {
							return err
						}
					}
					return acctest.CheckAttrInt(s, "data.berth_node.cap", "allocatable.cpu", acpu)
				},
			),
		}},
	})
}
