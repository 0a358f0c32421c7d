package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
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
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// TestAccInstanceSecret_writeOnly drives the terraform CLI with the
// provider binary at TF_LOG=TRACE: a secret given through secret_env_wo
// (from an ephemeral variable) reaches the task's environment (the task
// writes $SECRET to local/out, read back through Nomad's filesystem API),
// and the secret appears nowhere in terraform.tfstate, `terraform show
// -json`, the plan output or the TRACE log, which does hold berth's
// request writing the Variable (written before the job's registration,
// by Nomad's indexes).
// Bumping the version rotates the secret in the task; destroy deletes the
// Variable.
func TestAccInstanceSecret_writeOnly(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	name := "berth-acc-secret-" + acctest.RandomHex(3)
	cli := acctest.NewSecretCLI(t)
	varPath := instance.SecretEnvPath(name, instance.GroupName, "app")
	// Each secret has a space and a quote, and a random core to search for.
	tokens := []string{"tok" + acctest.RandomHex(8), "tok" + acctest.RandomHex(8)}
	secretOf := func(i int) string { return fmt.Sprintf(`pa ss "%s" end`, tokens[i]) }
	env := func(i int) []string { return append(append([]string{}, cli.Env...), "TF_VAR_secret="+secretOf(i)) }
	write := func(version int) {
		cli.WriteConfig(t, fmt.Sprintf(`
resource "berth_instance" "t" {
  name   = %q
  update = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sh"
      args    = ["-c", "printf '%%s' \"$SECRET\" > local/out; exec sleep 3600"]
      cpu     = 50
      memory  = 32
      secret_env_wo         = { SECRET = var.secret }
      secret_env_wo_version = %d
    }
  }
}
`, name, version))
	}
	c := acctest.Nomad(t)
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(cli.Dir, env(1), "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _, _ = c.Jobs().Deregister(name, true, nil)
		_, _ = c.Variables().Delete(varPath, nil)
	})

	run := func(i int, args ...string) string {
		t.Helper()
		return cli.Run(t, env(i), args...)
	}

	write(1)
	plan := run(0, "plan", "-input=false", "-no-color")
	if !strings.Contains(plan, "secret_env_wo") {
		t.Fatalf("the plan does not show the write-only attribute at all:\n%s", plan)
	}
	run(0, "apply", "-auto-approve", "-input=false", "-no-color")
	waitForSecretFile(t, name, 0, secretOf(0))
	v, _, err := c.Variables().Read(varPath, nil)
	if err != nil {
		t.Fatalf("reading the secrets Variable %s: %v", varPath, err)
	}
	if len(v.Items) != 1 || v.Items["SECRET"] != secretOf(0) {
		t.Errorf("the Variable holds %d items (SECRET matches: %v), want exactly SECRET", len(v.Items), v.Items["SECRET"] == secretOf(0))
	}
	if job, _, err := c.Jobs().Info(name, nil); err != nil {
		t.Fatal(err)
	} else if v.CreateIndex >= *job.CreateIndex {
		t.Errorf("the Variable was created at index %d, after the job (%d): it must exist before the job is registered", v.CreateIndex, *job.CreateIndex)
	}

	shown := run(0, "show", "-json")
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Values struct {
						Services map[string]map[string]any `json:"services"`
					} `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(shown), &st); err != nil || len(st.Values.RootModule.Resources) != 1 {
		t.Fatalf("terraform show -json: %v\n%s", err, shown)
	}
	app := st.Values.RootModule.Resources[0].Values.Services["app"]
	if app["secret_env_wo"] != nil || fmt.Sprint(app["secret_env_wo_version"]) != "1" {
		t.Errorf("state has secret_env_wo = %v, secret_env_wo_version = %v; want null and 1", app["secret_env_wo"] != nil, app["secret_env_wo_version"])
	}
	cli.ExpectEmptyPlan(t, env(0))
	before, _, err := c.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Rotate: a new value with a new version.
	write(2)
	plan = run(1, "plan", "-input=false", "-no-color")
	if !strings.Contains(plan, "secret_env_wo_version") || !strings.Contains(plan, "1 to change") {
		t.Fatalf("the plan does not update the version:\n%s", plan)
	}
	run(1, "apply", "-auto-approve", "-input=false", "-no-color")
	after, _, err := c.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := c.Variables().Read(varPath, nil); err != nil {
		t.Fatal(err)
	} else if v.ModifyIndex >= *after.JobModifyIndex {
		t.Errorf("the Variable was rewritten at index %d, after the job's registration (%d)", v.ModifyIndex, *after.JobModifyIndex)
	}
	if *after.Version <= *before.Version {
		t.Errorf("job version %d after the rotation, was %d: the allocations were not replaced", *after.Version, *before.Version)
	}
	waitForSecretFile(t, name, *after.Version, secretOf(1))

	run(1, "destroy", "-auto-approve", "-input=false", "-no-color")
	if _, _, err := c.Variables().Read(varPath, nil); !errors.Is(err, api.ErrVariablePathNotFound) && !acctest.IsNotFound(err) {
		t.Errorf("the secrets Variable after destroy: %v; want it deleted", err)
	}
	if _, _, err := c.Jobs().Info(name, nil); !acctest.IsNotFound(err) {
		t.Errorf("job after destroy: %v; want it purged", err)
	}

	// Nowhere: state file, show -json, plans, TRACE log (and every other output).
	trace := cli.Trace(t)
	// One request line; its fields come in no particular order.
	pathRE := regexp.MustCompile(`\spath=/v1/var/` + regexp.QuoteMeta(varPath) + `\s`)
	wrote := slices.ContainsFunc(strings.Split(trace, "\n"), func(line string) bool {
		return strings.Contains(line, "Nomad API request") && strings.Contains(line, " method=PUT ") && pathRE.MatchString(line)
	})
	if !wrote {
		t.Fatalf("the TRACE log (%d bytes) has no request writing %s; the test would prove nothing", len(trace), varPath)
	}
	cli.ExpectNowhere(t, shown, tokens...)
}

// waitForSecretFile waits until a running allocation of job at version
// (or later) has written want to local/out.
func waitForSecretFile(t *testing.T, job string, minVersion uint64, want string) {
	t.Helper()
	c := acctest.Nomad(t)
	acctest.WaitFor(t, "the task to write its secret to local/out", 2*time.Minute, func() (bool, error) {
		stubs, _, err := c.Jobs().Allocations(job, false, nil)
		if err != nil {
			return false, err
		}
		for _, s := range stubs {
			if s.ClientStatus != "running" || s.JobVersion < minVersion {
				continue
			}
			alloc, _, err := c.Allocations().Info(s.ID, nil)
			if err != nil {
				return false, err
			}
			rc, err := c.AllocFS().Cat(alloc, "app/local/out", nil)
			if err != nil {
				return false, err
			}
			got, err := io.ReadAll(rc)
			_ = rc.Close()
			if err != nil {
				return false, err
			}
			if string(got) == want {
				return true, nil
			}
			return false, fmt.Errorf("allocation %s has %d bytes in local/out, not the expected secret", s.ID[:8], len(got))
		}
		return false, fmt.Errorf("no running allocation of version %d yet", minVersion)
	})
}

// expectSecretEnv checks in Nomad whether the app task renders berth's
// secrets (template and version meta) and whether its Variable exists.
func expectSecretEnv(t *testing.T, name string, want bool) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		task := appTask(job)
		var tmpl *api.Template
		for _, tm := range task.Templates {
			if instance.IsSecretEnvTemplate(tm) {
				tmpl = tm
			}
		}
		_, hasMeta := task.Meta[instance.MetaSecretEnvVersion]
		path := instance.SecretEnvPath(name, instance.GroupName, "app")
		_, _, err := acctest.Nomad(t).Variables().Read(path, nil)
		exists := err == nil
		if err != nil && !errors.Is(err, api.ErrVariablePathNotFound) && !acctest.IsNotFound(err) {
			return fmt.Errorf("reading the Variable %s: %v", path, err)
		}
		if (tmpl != nil) != want || hasMeta != want || exists != want {
			return fmt.Errorf("secret template %v, version meta %v, Variable %v; want all %v", tmpl != nil, hasMeta, exists, want)
		}
		return nil
	})
}

// TestAccInstanceSecret_driftImportRemove: an instance with secrets
// imports with an empty plan (its version read from the task's meta),
// berth's template removed in Nomad (or its Variable deleted) shows as a
// planned update of secret_env_wo_version that puts it back, and removing
// the secrets deletes the Variable and the template.
func TestAccInstanceSecret_driftImportRemove(t *testing.T) {
	name := startInstanceTest(t)
	withSecrets := acctest.InstanceConfig{Name: name, App: `secret_env_wo = { TOKEN = "not-in-state" }
      secret_env_wo_version = 7`}.String()
	version := tfjsonpath.New("services").AtMapKey("app").AtMapKey("secret_env_wo_version")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: withSecrets,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.InstanceAddr, version, knownvalue.Int64Exact(7)),
					statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("services").AtMapKey("app").AtMapKey("secret_env_wo"), knownvalue.Null()),
				},
				Check: expectSecretEnv(t, name, true),
			},
			importVerified("default/" + name),
			{
				// berth's template removed in Nomad: the version reads unset.
				PreConfig: acctest.MutateJob(t, name, func(j *api.Job) {
					appTask(j).Templates = nil
				}),
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check:              resource.TestCheckNoResourceAttr(acctest.InstanceAddr, "services.app.secret_env_wo_version"),
			},
			{
				Config: withSecrets,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(acctest.InstanceAddr, version, knownvalue.Int64Exact(7)),
				}},
				Check: expectSecretEnv(t, name, true),
			},
			{
				// The Variable deleted by hand: the version reads unset too.
				PreConfig: func() {
					if _, err := acctest.Nomad(t).Variables().Delete(instance.SecretEnvPath(name, instance.GroupName, "app"), nil); err != nil {
						t.Fatal(err)
					}
				},
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check:              resource.TestCheckNoResourceAttr(acctest.InstanceAddr, "services.app.secret_env_wo_version"),
			},
			{
				Config: withSecrets,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				}},
				Check: expectSecretEnv(t, name, true),
			},
			{
				Config: acctest.InstanceConfig{Name: name}.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				}},
				Check: expectSecretEnv(t, name, false),
			},
		},
	})
}

// An update refused for its budget writes nothing: not the job, and not
// the new secret either (the running task's template would pick it up at
// once), and the charge stays what it was.
func TestAccInstanceSecret_budgetRefusedUpdateKeepsSecret(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	name := "berth-acc-sbud-" + acctest.RandomHex(3)
	cfg := func(replicas, version int, secret string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = "%[1]s-r"
  node_id = %[2]q
  cpu     = 100
  memory  = 64
  disk    = 300
}

resource "berth_instance" "app" {
  name             = %[1]q
  node_pool        = %[3]q
  node_reservation = berth_node_reservation.r.id
  replicas         = %[4]d
  update           = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = {
      driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32
      secret_env_wo         = { TOKEN = %[6]q }
      secret_env_wo_version = %[5]d
    }
  }
}
`, name, n.A.NodeID, n.Pool, replicas, version, secret)
	}
	varPath := instance.SecretEnvPath(name, instance.GroupName, "app")
	secretIs := func(want string) error {
		v, _, err := acctest.Nomad(t).Variables().Read(varPath, nil)
		if err != nil {
			return fmt.Errorf("reading %s: %v", varPath, err)
		}
		if got := v.Items["TOKEN"]; got != want {
			return fmt.Errorf("the secret in Nomad is %q, want %q", got, want)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			acctest.AssertNothingInNomad(t, name)
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg(1, 1, "first"),
				Check:  func(*terraform.State) error { return secretIs("first") },
			},
			{
				// 2 replicas need 100 MHz more than the reservation has.
				Config:      cfg(2, 2, "second"),
				ExpectError: regexp.MustCompile(`(?s)Not enough left in the node reservation.*cpu`),
			},
			{
				PreConfig: func() {
					if err := secretIs("first"); err != nil {
						t.Fatal(err)
					}
					job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
					if err != nil || *job.Version != 0 || *job.TaskGroups[0].Count != 1 {
						t.Fatalf("job after the refused update: %v", err)
					}
					if c, _ := acctest.UsedBy(t, n.A.NodeID, name+"-r", nomadclient.InstanceConsumer("default", name)); c.CPU != 50 {
						t.Fatalf("charge after the refused update: %+v, want the old 50 MHz", c)
					}
				},
				Config: cfg(1, 1, "first"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}
