package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
)

// handWrittenJob is a job as a team writes it by hand for Nomad: one task
// group with placement, restart and reschedule policies and an update
// block, a raw_exec task with a kill timeout. groups > 1 makes a job
// berth_instance cannot represent.
func handWrittenJob(id string, groups int) *api.Job {
	job := &api.Job{
		ID: ptr(id), Name: ptr(id), Type: ptr(api.JobTypeService), Datacenters: []string{"*"},
		Meta: map[string]string{"team": "payments"},
	}
	for i := range groups {
		name := "app"
		if i > 0 {
			name = "worker"
		}
		job.TaskGroups = append(job.TaskGroups, &api.TaskGroup{
			Name: ptr(name), Count: ptr(1),
			Update: &api.UpdateStrategy{MinHealthyTime: ptr(time.Second), HealthyDeadline: ptr(30 * time.Second), ProgressDeadline: ptr(time.Minute)},
			// What real jobs carry: placement, restart and reschedule
			// policies, a kill timeout.
			Constraints:      []*api.Constraint{api.NewConstraint("${attr.kernel.name}", "=", "linux")},
			Affinities:       []*api.Affinity{api.NewAffinity("${node.datacenter}", "=", "dc1", 40)},
			RestartPolicy:    &api.RestartPolicy{Attempts: ptr(1), Interval: ptr(10 * time.Minute), Delay: ptr(5 * time.Second), Mode: ptr("fail")},
			ReschedulePolicy: &api.ReschedulePolicy{Attempts: ptr(0), Unlimited: ptr(false)},
			Tasks: []*api.Task{{
				Name: "server", Driver: "raw_exec",
				Config:      map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Env:         map[string]string{"PORT": "8080"},
				Resources:   &api.Resources{CPU: ptr(30), MemoryMB: ptr(24)},
				KillTimeout: ptr(20 * time.Second),
			}},
		})
	}
	return job
}

// TestAccInstanceQuery_generateConfig runs `terraform query
// -generate-config-out` over three hand-written jobs: the two berth_instance
// can represent come back with their identities and configurations that,
// with their import blocks, plan no change (and change nothing in Nomad);
// the one it cannot (two task groups) is skipped with a warning naming it.
func TestAccInstanceQuery_generateConfig(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	c, ctx := newQueryCLI(t)
	prefix := "berth-acc-query-" + randomHex(3)
	web, api2, multi := prefix+"-web", prefix+"-api", prefix+"-multi"
	for id, groups := range map[string]int{web: 1, api2: 1, multi: 2} {
		if _, _, err := testNomad(t).Jobs().Register(handWrittenJob(id, groups), (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { purgeOutsideJob(t, "", id) })
	}

	c.init(ctx, `provider "berth" {}`)
	res := runQuery(ctx, t, c, `list "berth_instance" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "`+prefix+`"
    node_pool   = "default"
    meta        = { team = "payments" }
  }
}
`)
	slices.Sort(res.found)
	if want := []string{"default/" + api2, "default/" + web}; !slices.Equal(res.found, want) {
		t.Fatalf("query found %v, want %v", res.found, want)
	}
	if w := strings.Join(res.warnings, "\n"); !strings.Contains(w, multi) || !strings.Contains(w, "2 task groups") {
		t.Fatalf("want a warning that skips %s for its two task groups, got:\n%s", multi, w)
	}
	expectImportsOnly(ctx, t, c, 2)
	// Nomad still runs the jobs as written: nothing was registered again.
	for _, id := range []string{web, api2} {
		job, _, err := testNomad(t).Jobs().Info(id, nil)
		if err != nil || *job.Version != 0 {
			t.Fatalf("job %s after query and plan: version %v, err %v; want the version registered by hand", id, job.Version, err)
		}
	}
}

// newQueryCLI is a Terraform CLI for terraform query, which needs 1.14 or
// later (skipped below that), with a context that ends with the test.
func newQueryCLI(t *testing.T) (*tfCLI, context.Context) {
	t.Helper()
	c := newTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if v, _, err := c.tf.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.14.0"))) {
		t.Skipf("terraform query needs Terraform 1.14 or later; this is %v (%v)", v, err)
	}
	return c, ctx
}

// queryResult is what `terraform query` reported.
type queryResult struct {
	found    []string // display names
	warnings []string
}

// runQuery writes list as the only query file, runs `terraform query
// -generate-config-out=generated.tf` and removes the query file again.
func runQuery(ctx context.Context, t *testing.T, c *tfCLI, list string) queryResult {
	t.Helper()
	qf := filepath.Join(c.dir, "found.tfquery.hcl")
	if err := os.WriteFile(qf, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(qf)
	os.Remove(filepath.Join(c.dir, "generated.tf"))
	msgs, err := c.tf.QueryJSON(ctx, tfexec.Reattach(c.reattach), tfexec.GenerateConfigOut("generated.tf"))
	if err != nil {
		t.Fatalf("terraform query: %v\n%s", err, c.out.take())
	}
	var res queryResult
	for m := range msgs {
		if m.Err != nil {
			t.Fatalf("terraform query: %v\n%s", m.Err, c.out.take())
		}
		switch msg := m.Msg.(type) {
		case tfjson.ListResourceFoundMessage:
			res.found = append(res.found, msg.ListResourceFound.DisplayName)
		case tfjson.DiagnosticLogMessage:
			switch msg.Severity {
			case tfjson.DiagnosticSeverityWarning:
				res.warnings = append(res.warnings, msg.Summary+": "+msg.Detail)
			case tfjson.DiagnosticSeverityError:
				t.Fatalf("terraform query: %s: %s", msg.Summary, msg.Detail)
			}
		}
	}
	return res
}

// expectImportsOnly plans the written configuration (with generated.tf)
// and requires exactly want resource changes, each an import that changes
// nothing.
func expectImportsOnly(ctx context.Context, t *testing.T, c *tfCLI, want int) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(c.dir, "generated.tf")); err == nil {
		t.Logf("generated.tf:\n%s", b)
	}
	planFile := filepath.Join(c.dir, "import.tfplan")
	if _, err := c.tf.Plan(ctx, tfexec.Reattach(c.reattach), tfexec.Out(planFile)); err != nil {
		t.Fatalf("plan of the generated configuration: %v\n%s", err, c.out.take())
	}
	plan, err := c.tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(c.reattach))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.ResourceChanges) != want {
		t.Fatalf("the generated configuration plans %d resource changes, want %d imports", len(plan.ResourceChanges), want)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Change.Importing == nil || !rc.Change.Actions.NoOp() {
			b, _ := json.MarshalIndent(rc.Change, "", "  ")
			t.Fatalf("%s: want an import with no change, got actions %v:\n%s\n%s", rc.Address, rc.Change.Actions, b, c.out.take())
		}
	}
}

// adoptAgain creates what config declares, forgets it (terraform state
// rm), finds it again with list, and requires the generated configuration
// to import it with no change; then applies that import and destroys it.
func adoptAgain(t *testing.T, config, address, list, wantFound string) {
	t.Helper()
	c, ctx := newQueryCLI(t)
	c.init(ctx, config)
	c.mustApply(ctx, "create")
	if err := c.tf.StateRm(ctx, address); err != nil {
		t.Fatalf("terraform state rm %s: %v\n%s", address, err, c.out.take())
	}
	c.write(`provider "berth" {}`)
	res := runQuery(ctx, t, c, list)
	if !slices.ContainsFunc(res.found, func(s string) bool { return strings.Contains(s, wantFound) }) {
		t.Fatalf("query found %v, want one like %q; warnings %v", res.found, wantFound, res.warnings)
	}
	if len(res.found) != 1 {
		t.Fatalf("query found %v, want only %q", res.found, wantFound)
	}
	expectImportsOnly(ctx, t, c, 1)
	c.mustApply(ctx, "import")
	c.destroy(ctx)
}

// TestAccInstanceQuery_generateConfigEveryType registers a minimal service,
// batch and system job through the HTTP API, as a team does with
// `nomad job run`, leaving every default to Nomad. What `terraform query
// -generate-config-out` writes for them must validate and plan as imports
// only: berth must not write back a value Nomad filled in that its own
// validation refuses (a system job's zero update deadlines).
func TestAccInstanceQuery_generateConfigEveryType(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	c, ctx := newQueryCLI(t)
	prefix := "berth-acc-qtype-" + randomHex(3)
	var want []string
	for _, typ := range []string{api.JobTypeService, api.JobTypeBatch, api.JobTypeSystem} {
		id := prefix + "-" + typ
		job := &api.Job{ID: ptr(id), Name: ptr(id), Type: ptr(typ), Datacenters: []string{"*"},
			TaskGroups: []*api.TaskGroup{{Name: ptr("app"), Tasks: []*api.Task{{
				Name: "main", Driver: "raw_exec",
				Config: map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
			}}}}}
		if typ == api.JobTypeService {
			// A port and a Nomad service with a check, each with the
			// settings Nomad fills in (address mode, check interval…).
			g := job.TaskGroups[0]
			g.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
			g.Tasks[0].Services = []*api.Service{{Name: id, PortLabel: "http", Provider: "nomad",
				Checks: []api.ServiceCheck{{Type: "tcp", Interval: 10 * time.Second, Timeout: 2 * time.Second}}}}
		}
		if _, _, err := testNomad(t).Jobs().Register(job, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { purgeOutsideJob(t, "", id) })
		want = append(want, "default/"+id)
	}
	slices.Sort(want)

	c.init(ctx, `provider "berth" {}`)
	res := runQuery(ctx, t, c, `list "berth_instance" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "`+prefix+`"
  }
}
`)
	slices.Sort(res.found)
	if !slices.Equal(res.found, want) {
		t.Fatalf("query found %v, want %v; warnings %v", res.found, want, res.warnings)
	}
	expectImportsOnly(ctx, t, c, len(want))
	for _, id := range want {
		job, _, err := testNomad(t).Jobs().Info(strings.TrimPrefix(id, "default/"), nil)
		if err != nil || *job.Version != 0 {
			t.Fatalf("job %s after query and plan: version %v, err %v; want the version registered through the API", id, job.Version, err)
		}
	}
}
