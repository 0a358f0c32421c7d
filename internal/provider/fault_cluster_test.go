package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// jobVersions lists the versions Nomad keeps of a job (GET
// /v1/job/<id>/versions), newest first.
func jobVersions(t *testing.T, c *api.Client, id string) []uint64 {
	t.Helper()
	jobs, _, _, err := c.Jobs().Versions(id, false, nil)
	if err != nil {
		t.Fatalf("reading the versions of job %s: %v", id, err)
	}
	out := make([]uint64, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, *j.Version)
	}
	return out
}

// TestAccFault_leaderStoppedMidDeployment runs an update whose deployment
// waits out min_healthy_time on a three-server cluster, and kills the Raft
// leader while berth waits for it. Whether that apply succeeds or fails,
// Nomad holds exactly one new job version from it, a failure names the job
// or the address, and the next apply converges to an empty plan without
// registering another version. berth talks to the client agent, which
// forwards to whichever server leads.
func TestAccFault_leaderStoppedMidDeployment(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	begin := time.Now()
	cl, nomad := acctest.StartPrivateCluster(t, "berth-fault-lead")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	name := "fault-lead-" + acctest.RandomHex(3)
	config := func(revision string) string {
		return fmt.Sprintf(`
provider "berth" {
  address = %q
}

resource "berth_instance" "i" {
  name   = %q
  update = { min_healthy_time = "8s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = 50
      memory  = 32
      env     = { REVISION = %q }
    }
  }
}
`, cl.Client.Addr, name, revision)
	}
	cli := acctest.NewTFCLI(t)
	cli.Init(ctx, config("one"))
	cli.MustApply(ctx, "create")
	if v := jobVersions(t, nomad, name); fmt.Sprint(v) != "[0]" {
		t.Fatalf("job versions after create %v, want [0]", v)
	}

	type election struct {
		leader *devagent.Agent
		after  time.Duration
		err    error
	}
	elected := make(chan election, 1)
	var leader *devagent.Agent
	cli.Write(config("two"))
	res := cli.ApplyWithFault(ctx, "update", func() (bool, error) {
		d, _, err := nomad.Jobs().LatestDeployment(name, nil)
		return err == nil && d != nil && d.JobVersion == 1 && d.Status == api.DeploymentStatusRunning, err
	}, func() error {
		var err error
		if leader, err = cl.Leader(ctx, 30*time.Second); err != nil {
			return err
		}
		t.Logf("killing the leader %s (%s)", leader.Name, leader.RPCAddr)
		if err := leader.Kill(); err != nil {
			return err
		}
		killed := time.Now()
		go func() {
			next, err := cl.Leader(ctx, time.Minute, leader)
			elected <- election{next, time.Since(killed), err}
		}()
		return nil
	})
	e := <-elected
	if e.err != nil {
		t.Fatal(e.err)
	}
	t.Logf("%s leads %s after the kill; the interrupted apply ended %s after the kill",
		e.leader.Name, e.after.Round(100*time.Millisecond), res.AfterFault.Round(100*time.Millisecond))
	if res.Err != nil {
		// Terraform prints the plan first; the diagnostics follow.
		if _, diags, ok := strings.Cut(res.Output, "Error: "); !ok || !strings.Contains(diags, name) {
			t.Errorf("the failed apply does not name the job %s:\n%s", name, res.Output)
		}
	}
	if v := jobVersions(t, nomad, name); fmt.Sprint(v) != "[1 0]" {
		t.Errorf("job versions after the interrupted update %v, want exactly one new version [1 0]", v)
	}
	if res.Err == nil {
		// Success must mean berth saw version 1's deployment succeed, not
		// that a read from before the election made it skip the wait.
		st := cli.State(ctx)["berth_instance.i"]
		d, _, err := nomad.Jobs().LatestDeployment(name, nil)
		if err != nil || d == nil {
			t.Fatalf("reading the latest deployment: %v", err)
		}
		if d.JobVersion != 1 || d.Status != api.DeploymentStatusSuccessful ||
			stateAttr(st, "deployment_id") != d.ID || stateAttr(st, "deployment_status") != api.DeploymentStatusSuccessful {
			t.Errorf("the apply succeeded with state deployment %s %q; Nomad's latest is %s for version %d, %q",
				stateAttr(st, "deployment_id"), stateAttr(st, "deployment_status"), d.ID, d.JobVersion, d.Status)
		}
		// What berth read back after its write is that write, not older.
		job, _, err := nomad.Jobs().Info(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stateAttr(st, "job_version") != "1" || stateAttr(st, "job_modify_index") != fmt.Sprint(*job.JobModifyIndex) {
			t.Errorf("the apply succeeded with state job_version %s job_modify_index %s; Nomad has version %d index %d",
				stateAttr(st, "job_version"), stateAttr(st, "job_modify_index"), *job.Version, *job.JobModifyIndex)
		}
	}

	cli.MustApply(ctx, "converge after the election")
	cli.ExpectEmptyPlan(ctx, "after the election")
	if v := jobVersions(t, nomad, name); fmt.Sprint(v) != "[1 0]" {
		t.Errorf("job versions after converging %v, want [1 0]", v)
	}
	st := cli.State(ctx)["berth_instance.i"]
	job, _, err := nomad.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stateAttr(st, "job_version") != "1" || stateAttr(st, "job_modify_index") != fmt.Sprint(*job.JobModifyIndex) {
		t.Errorf("state job_version %s job_modify_index %s; Nomad has version %d index %d",
			stateAttr(st, "job_version"), stateAttr(st, "job_modify_index"), *job.Version, *job.JobModifyIndex)
	}
	if env := job.TaskGroups[0].Tasks[0].Env["REVISION"]; env != "two" {
		t.Errorf("job runs REVISION=%q, want two", env)
	}
	cli.Destroy(ctx)
	if jobs, _, err := nomad.Jobs().List(nil); err != nil || len(jobs) != 0 {
		t.Errorf("jobs left after destroy: %d (err %v)", len(jobs), err)
	}
	t.Logf("fault scenario took %s", time.Since(begin).Round(time.Second))
}
