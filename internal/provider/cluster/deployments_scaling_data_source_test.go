package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// registerDeployedJob registers, through Nomad's API, a service job of
// one raw_exec task with an update block (so it deploys) and a scaling
// policy on its group, pinned to the shared agent's node, and waits for
// its deployment to succeed. The job is purged when the test ends.
func registerDeployedJob(t *testing.T) string {
	t.Helper()
	id := "berth-acc-views-" + acctest.RandomHex(4)
	job := &api.Job{
		ID: acctest.Ptr(id), Name: acctest.Ptr(id), Type: acctest.Ptr(api.JobTypeService),
		NodePool: acctest.Ptr(api.NodePoolAll), Datacenters: []string{"*"},
		Constraints: []*api.Constraint{api.NewConstraint("${node.unique.id}", "=", acctest.ReadyNodeID(t))},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("web"), Count: acctest.Ptr(1),
			EphemeralDisk: &api.EphemeralDisk{SizeMB: acctest.Ptr(10)},
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), HealthCheck: acctest.Ptr("task_states"),
				MinHealthyTime: acctest.Ptr(time.Second), HealthyDeadline: acctest.Ptr(time.Minute),
				ProgressDeadline: acctest.Ptr(2 * time.Minute)},
			Scaling: &api.ScalingPolicy{Min: acctest.Ptr(int64(1)), Max: acctest.Ptr(int64(3)), Enabled: acctest.Ptr(true),
				Policy: map[string]any{"cooldown": "1m"}},
			Tasks: []*api.Task{{
				Name: "sleep", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(20), MemoryMB: acctest.Ptr(16)},
				LogConfig: &api.LogConfig{MaxFiles: acctest.Ptr(1), MaxFileSizeMB: acctest.Ptr(1)},
			}},
		}},
	}
	nomad := acctest.Nomad(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := nomad.Jobs().Register(job, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		t.Fatalf("registering job %s: %v", id, err)
	}
	t.Cleanup(func() { acctest.PurgeOutsideJob(t, "", id) })
	acctest.WaitFor(t, "job "+id+"'s deployment to succeed", 2*time.Minute, func() (bool, error) {
		deps, _, err := nomad.Jobs().Deployments(id, false, nil)
		if err != nil || len(deps) == 0 {
			return false, err
		}
		return deps[0].Status == api.DeploymentStatusSuccessful, nil
	})
	return id
}

// TestAccDeploymentsDataSource_asNomadSays reads the deployments of a job
// registered through Nomad's API and compares them with Nomad's.
func TestAccDeploymentsDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	job := registerDeployedJob(t)
	const ds = "data.berth_deployments.d"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_deployments" "d" {
  job = %q
}

data "berth_deployments" "everywhere" {
  namespace = "*"
}

data "berth_deployments" "no_job" {
  job = "berth-acc-no-such-job"
}
`, job),
			Check: func(s *terraform.State) error {
				deps, _, err := acctest.Nomad(t).Jobs().Deployments(job, false, nil)
				if err != nil {
					return err
				}
				if len(deps) != 1 {
					return fmt.Errorf("Nomad has %d deployments of %s, want 1", len(deps), job)
				}
				d := deps[0]
				g := d.TaskGroups["web"]
				everywhere := s.RootModule().Resources["data.berth_deployments.everywhere"].Primary.Attributes
				listed := false
				for i := 0; everywhere[fmt.Sprintf("deployments.%d.id", i)] != ""; i++ {
					listed = listed || everywhere[fmt.Sprintf("deployments.%d.id", i)] == d.ID
				}
				if !listed {
					return fmt.Errorf("deployment %s is not among every namespace's deployments", d.ID)
				}
				return resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "deployments.#", "1"),
					resource.TestCheckResourceAttr(ds, "deployments.0.id", d.ID),
					resource.TestCheckResourceAttr(ds, "deployments.0.namespace", d.Namespace),
					resource.TestCheckResourceAttr(ds, "deployments.0.job", job),
					resource.TestCheckResourceAttr(ds, "deployments.0.job_version", fmt.Sprint(d.JobVersion)),
					resource.TestCheckResourceAttr(ds, "deployments.0.status", d.Status),
					resource.TestCheckResourceAttr(ds, "deployments.0.status_description", d.StatusDescription),
					resource.TestCheckResourceAttr(ds, "deployments.0.create_time", fmt.Sprint(d.CreateTime)),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.%", "1"),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.web.desired_total", fmt.Sprint(g.DesiredTotal)),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.web.placed", fmt.Sprint(g.PlacedAllocs)),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.web.healthy", fmt.Sprint(g.HealthyAllocs)),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.web.unhealthy", fmt.Sprint(g.UnhealthyAllocs)),
					resource.TestCheckResourceAttr(ds, "deployments.0.groups.web.auto_revert", fmt.Sprint(g.AutoRevert)),
					resource.TestCheckResourceAttr("data.berth_deployments.no_job", "deployments.#", "0"),
				)(s)
			},
		}},
	})
}

// TestAccScalingPoliciesDataSource_asNomadSays reads the scaling policy of
// a job registered through Nomad's API, by job and by type, and compares
// it with Nomad's.
func TestAccScalingPoliciesDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	job := registerDeployedJob(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_scaling_policies" "by_job" {
  job = %q
}

data "berth_scaling_policies" "vertical" {
  job  = %q
  type = "vertical_cpu"
}
`, job, job),
			Check: func(s *terraform.State) error {
				policies, _, err := acctest.Nomad(t).Scaling().ListPolicies(&api.QueryOptions{Params: map[string]string{"job": job}})
				if err != nil {
					return err
				}
				if len(policies) != 1 {
					return fmt.Errorf("Nomad has %d scaling policies for %s, want 1", len(policies), job)
				}
				p := policies[0]
				const ds = "data.berth_scaling_policies.by_job"
				return resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "policies.#", "1"),
					resource.TestCheckResourceAttr(ds, "policies.0.id", p.ID),
					resource.TestCheckResourceAttr(ds, "policies.0.type", p.Type),
					resource.TestCheckResourceAttr(ds, "policies.0.enabled", fmt.Sprint(p.Enabled)),
					resource.TestCheckResourceAttr(ds, "policies.0.target.%", fmt.Sprint(len(p.Target))),
					resource.TestCheckResourceAttr(ds, "policies.0.target.Job", job),
					resource.TestCheckResourceAttr(ds, "policies.0.target.Group", "web"),
					resource.TestCheckResourceAttr("data.berth_scaling_policies.vertical", "policies.#", "0"),
				)(s)
			},
		}},
	})
}
