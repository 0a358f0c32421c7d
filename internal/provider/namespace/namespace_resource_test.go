package namespace_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func namespaceConfig(name, description, meta, capabilities string) string {
	return fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name         = %q
  description  = %q
  meta         = %s
  capabilities = %s
}
`, name, description, meta, capabilities)
}

// TestAccNamespace_lifecycle: create, drift made through Nomad's API
// (description and a disabled driver) named in the plan and put back, an
// update, import to an empty plan, and a destroy that leaves nothing.
func TestAccNamespace_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	name := nsName("life")
	caps := `{
    enabled_task_drivers   = ["docker", "raw_exec"]
    disabled_task_drivers  = ["exec"]
    disabled_network_modes = ["host"]
  }`
	first := wantNamespace{description: "first", meta: map[string]string{"team": "a"},
		enabledDrivers: []string{"docker", "raw_exec"}, disabledDrivers: []string{"exec"}, disabledModes: []string{"host"}}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkNamespaceGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: namespaceConfig(name, "first", `{ team = "a" }`, caps),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nsAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nsAddr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(nsAddr, tfjsonpath.New("capabilities").AtMapKey("enabled_network_modes"), knownvalue.Null()),
					statecheck.ExpectKnownValue(nsAddr, tfjsonpath.New("vault_config"), knownvalue.Null()),
				},
				Check: checkNamespace(t, name, first),
			},
			{
				// Changed through Nomad's API: the plan names what changed
				// and the apply puts it back.
				PreConfig: func() {
					ns := &api.Namespace{Name: name, Description: "changed by hand", Meta: map[string]string{"team": "a"},
						Capabilities: &api.NamespaceCapabilities{EnabledTaskDrivers: []string{"docker", "raw_exec"},
							DisabledTaskDrivers: []string{"exec", "java"}, DisabledNetworkModes: []string{"host"}}}
					if _, err := acctest.Nomad(t).Namespaces().Register(ns, nil); err != nil {
						t.Fatalf("changing namespace %q through the API: %v", name, err)
					}
				},
				Config: namespaceConfig(name, "first", `{ team = "a" }`, caps),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nsAddr, plancheck.ResourceActionUpdate),
					expectChanged{nsAddr, []string{"description", "capabilities"}},
				}},
				Check: checkNamespace(t, name, first),
			},
			{
				Config: namespaceConfig(name, "second", `{ team = "b", tier = "gpu" }`, `{ enabled_network_modes = ["bridge"] }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nsAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkNamespace(t, name, wantNamespace{description: "second", meta: map[string]string{"team": "b", "tier": "gpu"}}),
					func(*terraform.State) error {
						ns, err := readNamespace(t, name)
						if err != nil || ns == nil || ns.Capabilities == nil || len(ns.Capabilities.EnabledNetworkModes) != 1 {
							return fmt.Errorf("namespace %q capabilities in Nomad: %+v (%v); want enabled_network_modes [bridge]", name, ns, err)
						}
						return nil
					}),
			},
			{
				ResourceName:      nsAddr,
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
			},
			{
				// Removing every setting writes a namespace that holds none.
				Config: fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name = %q
}
`, name),
				Check: checkNamespace(t, name, wantNamespace{}),
			},
		},
	})
}

// TestAccNamespace_destroyRefusedWhileInUse: a job and a Variable made
// through Nomad's API in the namespace keep berth from deleting it: the
// destroy fails naming both, and the namespace is still there; once they
// are purged, the destroy succeeds.
func TestAccNamespace_destroyRefusedWhileInUse(t *testing.T) {
	acctest.PreCheck(t)
	name := nsName("inuse")
	job := "berth-acc-nsjob-" + acctest.RandomHex(3)
	varPath := "berth/acc/" + acctest.RandomHex(3)
	config := namespaceConfig(name, "holds a job", "{}", "null")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkNamespaceGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					registerJob(t, name, job)
					v := &api.Variable{Namespace: name, Path: varPath, Items: api.VariableItems{"k": "v"}}
					_, _, err := acctest.Nomad(t).Variables().Create(v, &api.WriteOptions{Namespace: name})
					return err
				},
			},
			{
				Config:  config,
				Destroy: true,
				// terraform wraps the detail, so words may be split by any space.
				ExpectError: regexp.MustCompile(`Namespace is not empty[\s\S]*Nothing\s+was\s+deleted[\s\S]*Jobs\s+\(any\s+status,\s+until\s+purged\):\s+` +
					job + `\.[\s\S]*Variables:\s+` + regexp.QuoteMeta(varPath) + `\.`),
			},
			{
				PreConfig: func() {
					if ns, err := readNamespace(t, name); err != nil || ns == nil {
						t.Fatalf("namespace %q after the refused destroy: %v (found %v); want it still there", name, err, ns != nil)
					}
					if _, _, err := acctest.Nomad(t).Jobs().Info(job, &api.QueryOptions{Namespace: name}); err != nil {
						t.Fatalf("job %q after the refused destroy: %v; want it untouched", job, err)
					}
					purgeJob(t, name, job)
					if _, err := acctest.Nomad(t).Variables().Delete(varPath, &api.WriteOptions{Namespace: name}); err != nil {
						t.Fatalf("deleting Variable %q: %v", varPath, err)
					}
				},
				Config:  config,
				Destroy: true,
			},
		},
	})
}

// TestAccNamespace_default: Nomad's default namespace cannot be created
// (refused at plan), but it can be imported with no change, and destroying
// it leaves it in Nomad as it was.
func TestAccNamespace_default(t *testing.T) {
	acctest.PreCheck(t)
	before, err := readNamespace(t, "default")
	if err != nil || before == nil {
		t.Fatalf("reading the default namespace: %v", err)
	}
	config := fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name        = "default"
  description = %q
}
`, before.Description)
	badNamespaceInput(t, "berth-acc-never", config, "name", "^The default namespace cannot be created$")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			after, err := readNamespace(t, "default")
			if err != nil || after == nil || after.ModifyIndex != before.ModifyIndex {
				return fmt.Errorf("default namespace after destroy: %+v (%v); want it untouched (modify index %d)", after, err, before.ModifyIndex)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: config + `
import {
  to = berth_namespace.ns
  id = "default"
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(nsAddr, plancheck.ResourceActionNoop),
			}},
		}},
	})
}

// TestAccNamespace_badInput: a bad name, a driver both enabled and
// disabled, and both allowed and denied are refused at validate with one
// error at the attribute; Enterprise settings are refused at plan on this
// Nomad CE agent. Nothing is created.
func TestAccNamespace_badInput(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	good := nsName("bad")
	for _, tc := range []struct{ name, ns, body, path, summary string }{
		{"badName", "bad_name", "", "name", "^Invalid namespace$"},
		{"longDescription", good, `description = "` + regexp.MustCompile(`.`).ReplaceAllString(fmt.Sprintf("%257s", ""), "x") + `"`,
			"description", "^Invalid Attribute Value Length$"},
		{"driverBoth", good, `capabilities = { enabled_task_drivers = ["docker", "exec"], disabled_task_drivers = ["exec"] }`,
			"capabilities.disabled_task_drivers", "^A task driver both enabled and disabled$"},
		{"modeBoth", good, `capabilities = { enabled_network_modes = ["host"], disabled_network_modes = ["host"] }`,
			"capabilities.disabled_network_modes", "^A network mode both enabled and disabled$"},
		{"allowedAndDenied", good, `node_pool_config = { allowed = ["a"], denied = ["b"] }`,
			"node_pool_config.denied", "^Both allowed and denied$"},
		{"vaultOnCE", good, `vault_config = { default = "other" }`, "vault_config", "^Needs Nomad Enterprise$"},
		{"quotaOnCE", good, `quota = "small"`, "quota", "^Needs Nomad Enterprise$"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := fmt.Sprintf("resource \"berth_namespace\" \"ns\" {\n  name = %q\n  %s\n}\n", tc.ns, tc.body)
			badNamespaceInput(t, tc.ns, config, tc.path, tc.summary)
		})
	}
}
