package instance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// promotionConfig is an instance with one replica and one canary that
// Nomad does not promote by itself.
func promotionConfig(name, release, trigger string) string {
	extra := "replicas = 1"
	if trigger != "" {
		extra += fmt.Sprintf("\n  promote_trigger = %q", trigger)
	}
	return acctest.InstanceConfig{Name: name, Extra: extra, App: fmt.Sprintf("env = { RELEASE = %q }", release),
		Update: `{ canary = 1, auto_promote = false, min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }`}.String()
}

// awaitingDeployment checks in Nomad that the job's latest deployment is
// the one of version, running, with its one canary placed, healthy and not
// promoted, next to the previous allocation, which still runs. It returns
// that deployment.
func awaitingDeployment(t *testing.T, name string, version uint64, previous string) *api.Deployment {
	t.Helper()
	c := acctest.Nomad(t)
	dep, _, err := c.Jobs().LatestDeployment(name, nil)
	if err != nil || dep == nil {
		t.Fatalf("latest deployment of %s: %v, %v", name, dep, err)
	}
	g := dep.TaskGroups["app"]
	if dep.JobVersion != version || dep.Status != api.DeploymentStatusRunning || g == nil || g.Promoted || g.DesiredCanaries != 1 || len(g.PlacedCanaries) != 1 {
		t.Fatalf("deployment %s of version %d is %s (%s), group %+v; want version %d running with one unpromoted canary",
			dep.ID, dep.JobVersion, dep.Status, dep.StatusDescription, g, version)
	}
	canary, _, err := c.Allocations().Info(g.PlacedCanaries[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if canary.ClientStatus != "running" || canary.DeploymentStatus == nil || canary.DeploymentStatus.Healthy == nil || !*canary.DeploymentStatus.Healthy {
		t.Fatalf("canary %s is %s with deployment status %+v; want running and healthy", canary.ID, canary.ClientStatus, canary.DeploymentStatus)
	}
	old, _, err := c.Allocations().Info(previous, nil)
	if err != nil {
		t.Fatal(err)
	}
	if old.ClientStatus != "running" || old.DesiredStatus != "run" {
		t.Fatalf("the previous allocation %s is %s/%s; it should run until the promotion", previous, old.ClientStatus, old.DesiredStatus)
	}
	return dep
}

func stateString(t *testing.T, cli *acctest.TFCLI, attr string) string {
	t.Helper()
	r := cli.State(context.Background())[acctest.InstanceAddr]
	if r == nil {
		t.Fatalf("%s is not in state", acctest.InstanceAddr)
	}
	s, _ := r.AttributeValues[attr].(string)
	return s
}

// TestAccInstanceUpdate_manualPromotion: with canary = 1 and auto_promote =
// false, an update finishes once the canary is healthy, warns that the
// deployment awaits promotion, and leaves it open in Nomad with the old
// allocation running; the plan is then empty. Another change while it is
// open registers a new version (Nomad supersedes the open deployment)
// without hanging. A new promote_trigger promotes through Nomad's API and
// waits for the deployment: the old allocation is replaced, without a new
// job version, and the plan is empty again.
// It drives the terraform CLI itself: warnings are only visible there.
func TestAccInstanceUpdate_manualPromotion(t *testing.T) {
	name := startInstanceTest(t)
	c := acctest.Nomad(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cli := acctest.NewTFCLI(t)
	cli.Init(ctx, promotionConfig(name, "1", ""))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cli.Destroy(ctx)
		if err := acctest.CheckInstanceDestroyed(t, name)(nil); err != nil {
			t.Error(err)
		}
	})
	cli.MustApply(ctx, "create")
	allocs, _, err := c.Jobs().Allocations(name, false, nil)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("allocations after create: %d, %v", len(allocs), err)
	}
	first := allocs[0].ID
	if got := stateString(t, cli, "deployment_status"); got != "successful" {
		t.Fatalf("deployment_status after create = %q; the first version has no canaries", got)
	}

	applyWarns := func(what, config string) string {
		t.Helper()
		cli.Write(config)
		took, err := cli.Apply(ctx)
		out := cli.Out.Take()
		if err != nil {
			t.Fatalf("%s: apply failed after %s: %v\n%s", what, took.Round(time.Second), err, out)
		}
		if !strings.Contains(out, "Deployment awaits promotion") || !strings.Contains(out, "promote_trigger") {
			t.Fatalf("%s: apply did not warn that the deployment awaits promotion:\n%s", what, out)
		}
		return out
	}

	applyWarns("update leaving the canary unpromoted", promotionConfig(name, "2", ""))
	dep1 := awaitingDeployment(t, name, 1, first)
	if got := stateString(t, cli, "deployment_status"); got != deploymentAwaitingPromotion {
		t.Errorf("deployment_status = %q, want %q", got, deploymentAwaitingPromotion)
	}
	if got := stateString(t, cli, "deployment_id"); got != dep1.ID {
		t.Errorf("deployment_id = %q, want %s", got, dep1.ID)
	}
	cli.ExpectEmptyPlan(ctx, "with the deployment awaiting promotion")

	applyWarns("another change while the deployment is open", promotionConfig(name, "3", ""))
	dep2 := awaitingDeployment(t, name, 2, first)
	if d, _, err := c.Deployments().Info(dep1.ID, nil); err == nil && d.Status != api.DeploymentStatusCancelled {
		t.Errorf("the superseded deployment %s is %s (%s), want canceled", d.ID, d.Status, d.StatusDescription)
	}

	cli.Write(promotionConfig(name, "3", "release-3"))
	cli.MustApply(ctx, "promote")
	if out := cli.Out.Take(); strings.Contains(out, "awaits promotion") {
		t.Errorf("the promoting apply still warns:\n%s", out)
	}
	d, _, err := c.Deployments().Info(dep2.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != api.DeploymentStatusSuccessful || !d.TaskGroups["app"].Promoted {
		t.Fatalf("deployment %s is %s (%s), promoted %v; want successful and promoted", d.ID, d.Status, d.StatusDescription, d.TaskGroups["app"].Promoted)
	}
	job, _, err := c.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *job.Version != 2 {
		t.Errorf("job version %d after the promotion, want 2 (promoting registers nothing)", *job.Version)
	}
	allocs, _, err = c.Jobs().Allocations(name, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, a := range allocs {
		if a.ID == first && a.DesiredStatus != "stop" {
			t.Errorf("the first allocation %s is still desired %s after the promotion", a.ID, a.DesiredStatus)
		}
		if a.DesiredStatus == "run" && a.ClientStatus == "running" {
			running = append(running, a.ID)
			if a.JobVersion != 2 {
				t.Errorf("allocation %s runs version %d, want 2", a.ID, a.JobVersion)
			}
		}
	}
	if len(running) != 1 || running[0] != d.TaskGroups["app"].PlacedCanaries[0] {
		t.Errorf("running allocations %v, want only the promoted canary %v", running, d.TaskGroups["app"].PlacedCanaries)
	}
	if got := stateString(t, cli, "deployment_status"); got != "successful" {
		t.Errorf("deployment_status after the promotion = %q, want successful", got)
	}
	cli.ExpectEmptyPlan(ctx, "after the promotion")
}

// expectPriorValue checks the value an attribute has in the refreshed state
// a plan starts from (the plan's "before").
type expectPriorValue struct {
	attr, key string
	want      any
}

func (e expectPriorValue) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != acctest.InstanceAddr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		obj, _ := before[e.attr].(map[string]any)
		if got := obj[e.key]; got != e.want {
			resp.Error = fmt.Errorf("%s.%s before the plan = %v, want %v", e.attr, e.key, got, e.want)
		}
		return
	}
	resp.Error = fmt.Errorf("no change planned for %s", acctest.InstanceAddr)
}

// TestAccInstanceUpdate_healthCheckAndStagger: health_check (checks without
// any service check, manual, task_states) and stagger are sent and read back
// from Nomad exactly; with health_check = "manual" an update ends once
// Nomad placed the allocation, although nobody marks it healthy, and the
// next change goes through; a health_check changed in Nomad shows in the
// next plan and the apply puts it back.
func TestAccInstanceUpdate_healthCheckAndStagger(t *testing.T) {
	name := startInstanceTest(t)
	cfg := func(health, release string) string {
		return acctest.InstanceConfig{Name: name, Extra: "replicas = 1", App: fmt.Sprintf("env = { RELEASE = %q }", release),
			Update: fmt.Sprintf(`{ health_check = %q, stagger = "45s", min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }`, health)}.String()
	}
	inNomad := func(health string) resource.TestCheckFunc {
		return acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
			u := job.TaskGroups[0].Update
			if *u.HealthCheck != health || *u.Stagger != 45*time.Second {
				return fmt.Errorf("group update in Nomad: health_check %q, stagger %s; want %q, 45s", *u.HealthCheck, *u.Stagger, health)
			}
			if job.Update == nil || *job.Update.Stagger != 45*time.Second {
				return fmt.Errorf("job-level update in Nomad = %+v, want stagger 45s", job.Update)
			}
			return nil
		})
	}
	healthAt := func(v string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("update").AtMapKey("health_check"), knownvalue.StringExact(v))
	}
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}}
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			// Not what berth derives (no service has a check), and
			// the same for Nomad: sent as written.
			Config: cfg("checks", "1"), ConfigPlanChecks: empty,
			ConfigStateChecks: []statecheck.StateCheck{healthAt("checks")},
			Check:             inNomad("checks"),
		},
		{
			// Nobody marks the new allocation healthy: the apply must
			// not wait for the deployment.
			Config: cfg("manual", "2"), ConfigPlanChecks: empty,
			ConfigStateChecks: []statecheck.StateCheck{
				healthAt("manual"),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("running")),
			},
			Check: resource.ComposeTestCheckFunc(inNomad("manual"), acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				dep, _, err := acctest.Nomad(t).Jobs().LatestDeployment(name, nil)
				if err != nil || dep == nil || dep.JobVersion != *job.Version || dep.Status != api.DeploymentStatusRunning {
					return fmt.Errorf("latest deployment %+v (%v), want version %d still running", dep, err, *job.Version)
				}
				return nil
			})),
		},
		{
			// The open deployment does not hold up the next change.
			Config: cfg("task_states", "3"), ConfigPlanChecks: empty,
			ConfigStateChecks: []statecheck.StateCheck{
				healthAt("task_states"),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
			},
			Check: inNomad("task_states"),
		},
		{
			PreConfig: acctest.MutateJob(t, name, func(j *api.Job) { j.TaskGroups[0].Update.HealthCheck = acctest.Ptr("manual") }),
			Config:    cfg("task_states", "3"), PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				expectPriorValue{attr: "update", key: "health_check", want: "manual"},
			}},
		},
		{Config: cfg("task_states", "3"), ConfigPlanChecks: empty, Check: inNomad("task_states")},
	})
}
