package job

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// A task `secret` block is Nomad 1.11's: a 1.10 cluster's parser refuses
// it. berth reads jobspecs with the cluster's own parser and sends jobs
// whole, so the block works where the cluster knows it and is refused, in
// the cluster's words, where it does not. The tests named NewerNomad run
// on the compatibility line (scripts/testacc-compat.sh, Nomad 1.11), the
// others on the main suite's 1.10 agent; each skips on the other.

// secretJobspec is a job whose task has a secret block read from a Nomad
// Variable.
func secretJobspec(name string, count int) string {
	return fmt.Sprintf(`job %q {
  group "web" {
    count = %d
    %s
  }
}
`, name, count, sleepTask("app", 32, fmt.Sprintf(`secret "creds" {
    provider = "nomad"
    path     = "berth/%s"
  }`, name)))
}

// liveTaskSecrets is the task's secret blocks as Nomad's JSON holds them
// (read raw: berth's api structs need not know the field).
func liveTaskSecrets(t *testing.T, name string) (count int, secrets []any, err error) {
	t.Helper()
	var job map[string]any
	if _, err := acctest.Nomad(t).Raw().Query("/v1/job/"+name, &job, nil); err != nil {
		return 0, nil, err
	}
	group := job["TaskGroups"].([]any)[0].(map[string]any)
	task := group["Tasks"].([]any)[0].(map[string]any)
	secrets, _ = task["Secrets"].([]any)
	n, _ := group["Count"].(float64)
	return int(n), secrets, nil
}

func checkSecretInNomad(t *testing.T, name string, wantCount int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		count, secrets, err := liveTaskSecrets(t, name)
		if err != nil {
			return err
		}
		if count != wantCount || len(secrets) != 1 {
			return fmt.Errorf("Nomad holds count %d and %d secret blocks; want count %d and the secret block", count, len(secrets), wantCount)
		}
		if s, _ := secrets[0].(map[string]any); s["Name"] != "creds" || s["Provider"] != "nomad" {
			return fmt.Errorf("Nomad holds secret %v", secrets[0])
		}
		return nil
	}
}

// TestAccJob_secretBlockNewerNomad: on a cluster that knows the block, a
// jobspec with it plans, applies, reads back without drift, and Nomad
// holds the block.
func TestAccJob_secretBlockNewerNomad(t *testing.T) {
	acctest.NeedNewerNomad(t)
	name := "berth-acc-secret-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: jobConfig(secretJobspec(name, 1), "  wait_for_healthy = false\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionCreate),
				}},
				Check: checkSecretInNomad(t, name, 1),
			},
			{
				Config: jobConfig(secretJobspec(name, 1), "  wait_for_healthy = false\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				Config: jobConfig(secretJobspec(name, 2), "  wait_for_healthy = false\n"),
				Check:  checkSecretInNomad(t, name, 2),
			},
		},
	})
}

// TestAccJob_secretBlockRefusedByOlderNomad: on a cluster that does not
// know the block, the plan fails at jobspec with the cluster's own
// message, naming the block's line; nothing is registered.
func TestAccJob_secretBlockRefusedByOlderNomad(t *testing.T) {
	acctest.PreCheck(t)
	if acctest.AgentAtLeast(t, "1.11.0") {
		t.Skipf("the agent runs Nomad %s, which knows the secret block; this runs on the main suite's 1.10 agent", acctest.AgentVersion(t))
	}
	name := "berth-acc-secret-old-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      jobConfig(secretJobspec(name, 1), ""),
			ExpectError: regexp.MustCompile(`(?s)Invalid jobspec.*cluster's\s+jobspec\s+parser\s+refused\s+it:\s+line\s+10,\s+column\s+7:.*Unsupported\s+block\s+type.*"secret"`),
		}},
		CheckDestroy: func(*terraform.State) error {
			if _, _, err := acctest.Nomad(t).Jobs().Info(name, nil); err == nil {
				return fmt.Errorf("job %q was registered", name)
			}
			return nil
		},
	})
}

// TestAccJob_importKeepsNewerFieldNewerNomad: a job registered by hand
// with a secret block, imported as berth_job from its JSON and scaled
// through berth, keeps the block in Nomad.
func TestAccJob_importKeepsNewerFieldNewerNomad(t *testing.T) {
	acctest.NeedNewerNomad(t)
	name := "berth-acc-secret-imp-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	// Registered as `nomad job run` would: parsed by the cluster, sent
	// raw (berth's api structs are not in the way).
	var parsed json.RawMessage
	if _, err := nomad.Raw().Write("/v1/jobs/parse", map[string]any{"JobHCL": secretJobspec(name, 1)}, &parsed, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nomad.Raw().Write("/v1/jobs", map[string]any{"Job": parsed}, nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = nomad.Jobs().Deregister(name, true, nil) })
	// The configuration is the job's JSON as an import records it, with
	// a count of 2.
	var raw json.RawMessage
	if _, err := nomad.Raw().Query("/v1/job/"+name, &raw, nil); err != nil {
		t.Fatal(err)
	}
	live, extra, err := jobspec.SplitJob(raw)
	if err != nil {
		t.Fatal(err)
	}
	live.TaskGroups[0].Count = acctest.Ptr(2)
	asJSON, err := jobspec.JSONOf(live, extra)
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", jobAddr, "default/"+name) +
		jobConfig(strings.ReplaceAll(asJSON, "${", "$${"), "  wait_for_healthy = false\n") // a heredoc: Nomad's ${…} literally
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkSecretInNomad(t, name, 2),
		}},
	})
}
