package node

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const nodePoolAddr = "berth_node_pool.p"

func nodePoolConfig(name, description, meta string) string {
	return fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = %q
  meta        = %s
}
`, name, description, meta)
}

// checkNodePool reads the pool from Nomad and requires its description
// and meta.
func checkNodePool(t *testing.T, name, description string, meta map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p, _, err := acctest.Nomad(t).NodePools().Info(name, nil)
		if err != nil {
			return fmt.Errorf("reading node pool %q from Nomad: %v", name, err)
		}
		if p.Description != description || !maps.Equal(p.Meta, meta) {
			return fmt.Errorf("node pool %q in Nomad: description %q meta %v; want %q %v", name, p.Description, p.Meta, description, meta)
		}
		return nil
	}
}

// checkNodePoolGone requires that Nomad has no pool called name.
func checkNodePoolGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		p, _, err := acctest.Nomad(t).NodePools().Info(name, nil)
		if err == nil {
			return fmt.Errorf("node pool %q is still in Nomad: %+v", name, p)
		}
		if !strings.Contains(err.Error(), "404") {
			return fmt.Errorf("reading node pool %q: %v", name, err)
		}
		return nil
	}
}

func TestAccNodePool_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-pool-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkNodePoolGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: nodePoolConfig(name, "first", `{ team = "a" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodePoolAddr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(nodePoolAddr, tfjsonpath.New("meta"), knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("a")})),
					statecheck.ExpectKnownValue(nodePoolAddr, tfjsonpath.New("scheduler_algorithm"), knownvalue.Null()),
				},
				Check: checkNodePool(t, name, "first", map[string]string{"team": "a"}),
			},
			{
				// Changed outside Terraform: the plan puts it back.
				PreConfig: func() {
					pool := &api.NodePool{Name: name, Description: "changed by hand", Meta: map[string]string{"team": "ops"}}
					if _, err := acctest.Nomad(t).NodePools().Register(pool, nil); err != nil {
						t.Fatalf("changing node pool %q through the API: %v", name, err)
					}
				},
				Config: nodePoolConfig(name, "first", `{ team = "a" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodePoolAddr, tfjsonpath.New("description"), knownvalue.StringExact("first")),
				}},
				Check: checkNodePool(t, name, "first", map[string]string{"team": "a"}),
			},
			{
				Config: nodePoolConfig(name, "second", `{ team = "b", tier = "gpu" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodePoolAddr, tfjsonpath.New("description"), knownvalue.StringExact("second")),
				},
				Check: checkNodePool(t, name, "second", map[string]string{"team": "b", "tier": "gpu"}),
			},
			{
				ResourceName:      nodePoolAddr,
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccNodePool_usedByInstance places an instance into a pool berth
// manages. The test agent's only node is in the default pool, so the job
// cannot be placed: it is registered into the pool (wait_for_healthy =
// false). Removing the pool while the job is in it is refused with one
// diagnostic naming the job; destroying both removes the instance first.
func TestAccNodePool_usedByInstance(t *testing.T) {
	acctest.PreCheck(t)
	pool := "berth-acc-pool-used-" + acctest.RandomHex(3)
	job := "berth-acc-pool-job-" + acctest.RandomHex(3)
	instance := func(nodePool string) string {
		return fmt.Sprintf(`
resource "berth_instance" "i" {
  name             = %q
  node_pool        = %s
  wait_for_healthy = false
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
  }
}
`, job, nodePool)
	}
	withPool := nodePoolConfig(pool, "for one instance", "{}") + instance("berth_node_pool.p.name")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeTestCheckFunc(checkNodePoolGone(t, pool), func(*terraform.State) error {
			if j, _, err := acctest.Nomad(t).Jobs().Info(job, nil); err == nil {
				return fmt.Errorf("job %q is still in Nomad (status %s)", job, *j.Status)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: withPool,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_instance.i", tfjsonpath.New("node_pool"), knownvalue.StringExact(pool)),
				},
				Check: acctest.WithJob(t, job, func(j *api.Job, _ []*api.AllocationListStub) error {
					if j.NodePool == nil || *j.NodePool != pool {
						return fmt.Errorf("job %q runs in node pool %v, want %q", job, j.NodePool, pool)
					}
					return nil
				}),
			},
			{
				// The pool leaves the configuration, the instance stays in it.
				Config: instance(fmt.Sprintf("%q", pool)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolAddr, plancheck.ResourceActionDestroy),
					plancheck.ExpectResourceAction("berth_instance.i", plancheck.ResourceActionNoop),
				}},
				ExpectError: regexp.MustCompile(`(?s)Node pool is in use.*` + regexp.QuoteMeta("default/"+job) + `.*destroy again`),
			},
			{
				// Still there, and still in state: back to the full configuration.
				Config: withPool,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: checkNodePool(t, pool, "for one instance", nil),
			},
		},
	})
}

// TestAccNodePool_enterpriseSettingsRefused: Nomad CE refuses a pool's
// scheduler configuration. The apply fails with one diagnostic, at the
// attribute that asked for it, quoting Nomad, and nothing is created.
func TestAccNodePool_enterpriseSettingsRefused(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cli := acctest.NewTFCLI(t)
	for i, c := range []struct{ setting, at string }{
		{`scheduler_algorithm = "spread"`, "scheduler_algorithm"},
		{`memory_oversubscription = true`, "memory_oversubscription"},
	} {
		name := fmt.Sprintf("berth-acc-pool-ent-%d-%s", i, acctest.RandomHex(3))
		config := fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name = %q
  %s
}
`, name, c.setting)
		if i == 0 {
			cli.Init(ctx, config)
		} else {
			cli.Write(config)
		}
		_, err := cli.Apply(ctx)
		// Terraform wraps the detail's lines: compare words.
		out := strings.Join(strings.Fields(acctest.DiagnosticsOf(cli.Out.Take())), " ")
		if err == nil {
			t.Fatalf("%s: the apply succeeded; want Nomad CE's refusal", c.setting)
		}
		if n := strings.Count(out, "Error: "); n != 1 {
			t.Errorf("%s: %d error diagnostics, want one:\n%s", c.setting, n, out)
		}
		for _, want := range []string{"Node pool scheduler settings need Nomad Enterprise", `Feature "Node Pools Governance" is unlicensed`, c.setting, "was not created"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the diagnostic does not say %q:\n%s", c.setting, want, out)
			}
		}
		if err := checkNodePoolGone(t, name)(nil); err != nil {
			t.Errorf("%s: %v", c.setting, err)
		}
	}
	cli.Destroy(ctx)
}

// TestAccNodePool_builtInNameRefused: Nomad's built-in pools are refused
// by terraform validate, before any plan reaches Nomad.
func TestAccNodePool_builtInNameRefused(t *testing.T) {
	acctest.PreCheck(t)
	step := func(name string) resource.TestStep {
		return resource.TestStep{
			Config:      fmt.Sprintf("resource \"berth_node_pool\" \"p\" {\n  name = %q\n}\n", name),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Built-in node pool.*` + regexp.QuoteMeta(fmt.Sprintf("%q is one of Nomad's built-in", name))),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{step("all"), step("default")},
	})
}
