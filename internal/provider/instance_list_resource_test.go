package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
)

// handWrittenJob is a job as a team writes it by hand for Nomad: one task
// group, a raw_exec task, an update block. groups > 1 makes a job
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
			Tasks: []*api.Task{{
				Name: "server", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Env:       map[string]string{"PORT": "8080"},
				Resources: &api.Resources{CPU: ptr(30), MemoryMB: ptr(24)},
			}},
		})
	}
	return job
}

// TestAccInstanceQuery_generateConfig runs `terraform query
// -generate-config-out` over hand-written jobs: the one berth_instance can
// represent comes back with its identity and a configuration that, with
// its import block, plans no change; the one it cannot (two task groups)
// is skipped with a warning naming it.
func TestAccInstanceQuery_generateConfig(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	c := newTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if v, _, err := c.tf.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.14.0"))) {
		t.Skipf("terraform query needs Terraform 1.14 or later; this is %v (%v)", v, err)
	}
	prefix := "berth-acc-query-" + randomHex(3)
	good, multi := prefix+"-web", prefix+"-multi"
	for id, groups := range map[string]int{good: 1, multi: 2} {
		if _, _, err := testNomad(t).Jobs().Register(handWrittenJob(id, groups), (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { purgeOutsideJob(t, "", id) })
	}

	c.init(ctx, `provider "berth" {}`)
	query := `list "berth_instance" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "` + prefix + `"
    node_pool   = "default"
    meta        = { team = "payments" }
  }
}
`
	if err := os.WriteFile(filepath.Join(c.dir, "found.tfquery.hcl"), []byte(query), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.tf.QueryJSON(ctx, tfexec.Reattach(c.reattach), tfexec.GenerateConfigOut("generated.tf"))
	if err != nil {
		t.Fatalf("terraform query: %v\n%s", err, c.out.take())
	}
	var found []string
	var warnings []string
	for m := range msgs {
		if m.Err != nil {
			t.Fatalf("terraform query: %v\n%s", m.Err, c.out.take())
		}
		if m.Msg == nil {
			continue
		}
		switch msg := m.Msg.(type) {
		case tfjson.ListResourceFoundMessage:
			found = append(found, msg.ListResourceFound.DisplayName)
			if got := msg.ListResourceFound.Identity["name"]; got != good {
				t.Errorf("identity name = %v, want %s", got, good)
			}
		case tfjson.DiagnosticLogMessage:
			if msg.Severity == tfjson.DiagnosticSeverityWarning {
				warnings = append(warnings, msg.Summary+": "+msg.Detail)
			}
		}
	}
	if len(found) != 1 || found[0] != "default/"+good {
		t.Fatalf("query found %v, want only default/%s\n%s", found, good, c.out.take())
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, multi) || !strings.Contains(w, "2 task groups") {
		t.Fatalf("want a warning that skips %s for its two task groups, got:\n%s", multi, w)
	}

	generated, err := os.ReadFile(filepath.Join(c.dir, "generated.tf"))
	if err != nil {
		t.Fatalf("reading the generated configuration: %v\n%s", err, c.out.take())
	}
	t.Logf("generated:\n%s", generated)
	os.Remove(filepath.Join(c.dir, "found.tfquery.hcl"))
	planFile := filepath.Join(c.dir, "import.tfplan")
	if _, err := c.tf.Plan(ctx, tfexec.Reattach(c.reattach), tfexec.Out(planFile)); err != nil {
		t.Fatalf("plan of the generated configuration: %v\n%s", err, c.out.take())
	}
	plan, err := c.tf.ShowPlanFile(ctx, planFile, tfexec.Reattach(c.reattach))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.ResourceChanges) != 1 {
		t.Fatalf("the generated configuration plans %d resource changes, want the one import", len(plan.ResourceChanges))
	}
	rc := plan.ResourceChanges[0]
	if rc.Change.Importing == nil || !rc.Change.Actions.NoOp() {
		b, _ := json.MarshalIndent(rc.Change, "", "  ")
		t.Fatalf("%s: want an import with no change, got actions %v:\n%s\n%s", rc.Address, rc.Change.Actions, b, c.out.take())
	}
	// Nomad still runs the job as written: the import changed nothing.
	job, _, err := testNomad(t).Jobs().Info(good, nil)
	if err != nil || *job.Version != 0 {
		t.Fatalf("job %s after query and plan: version %v, err %v; want the version registered by hand", good, job.Version, err)
	}
}
