package provider_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// Helpers for jobs berth knows nothing about: registered straight through
// Nomad's HTTP API, as someone running `nomad job run` or another tool would,
// to show what Nomad's scheduler itself lets onto a node.

// readJobResources reads back what a job asks of its node: the cpu and
// memory of its only task and the ephemeral disk of its only task group (a
// berth hold job has exactly one of each; anything else fails the test).
// exists is false when the job is not in Nomad or is stopped (deregistered
// but not yet purged or collected), since then it holds nothing.
func readJobResources(t *testing.T, ns, jobID string) (cpu, memMB, diskMB int, exists bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	job, _, err := acctest.Nomad(t).Jobs().Info(jobID, (&api.QueryOptions{Namespace: acctest.NsOrDefault(ns)}).WithContext(ctx))
	if acctest.IsNotFound(err) {
		return 0, 0, 0, false
	}
	if err != nil {
		t.Fatalf("reading job %s in namespace %s: %v", jobID, acctest.NsOrDefault(ns), err)
	}
	if job.Stop != nil && *job.Stop {
		return 0, 0, 0, false
	}
	if len(job.TaskGroups) != 1 || len(job.TaskGroups[0].Tasks) != 1 {
		t.Fatalf("job %s has %d task groups (want one with one task)", jobID, len(job.TaskGroups))
	}
	tg := job.TaskGroups[0]
	task := tg.Tasks[0]
	if task.Resources == nil || task.Resources.CPU == nil || task.Resources.MemoryMB == nil ||
		tg.EphemeralDisk == nil || tg.EphemeralDisk.SizeMB == nil {
		t.Fatalf("job %s: Nomad returned no resources or no ephemeral disk for task %s", jobID, task.Name)
	}
	return *task.Resources.CPU, *task.Resources.MemoryMB, *tg.EphemeralDisk.SizeMB, true
}

// TestAccOutsideJob_capacityIsEnforced proves the harness that the node
// reservation hold tests stand on: a hold node has exactly its fixed size,
// and Nomad refuses a plain job that does not fit beside another one, then
// places it once the other one is purged.
func TestAccOutsideJob_capacityIsEnforced(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	acctest.UseNodeAlone(t, f.HoldA)
	nodeID := f.HoldA.NodeID

	n := acctest.APINode(t, acctest.Nomad(t), nodeID)
	if n.NodePool != f.HoldPoolA {
		t.Errorf("hold node is in node pool %q, want %q", n.NodePool, f.HoldPoolA)
	}
	if cpu, mem, disk := acctest.AllocatableOf(n); cpu != acctest.HoldCPU || mem != acctest.HoldMemoryMB || disk != acctest.HoldDiskMB {
		t.Fatalf("hold node allocatable: cpu %d MHz, memory %d MB, disk %d MB; want its fixed size %d, %d, %d",
			cpu, mem, disk, acctest.HoldCPU, acctest.HoldMemoryMB, acctest.HoldDiskMB)
	}

	// a takes 800 of the 1024 MB; b's 400 MB fits the node but not beside a.
	a := acctest.RegisterOutsideJob(t, "", nodeID, 100, 800)
	acctest.WaitPlaced(t, "", a, nodeID)
	b := acctest.RegisterOutsideJob(t, "", nodeID, 100, 400)
	m := acctest.WaitNotPlaced(t, "", b)
	if m.DimensionExhausted["memory"] == 0 {
		t.Errorf("job %s was refused, but not for memory: exhausted %v", b, m.DimensionExhausted)
	}
	if cpu, mem, disk, ok := readJobResources(t, "", b); !ok || cpu != 100 || mem != 400 || disk != 10 {
		t.Errorf("job %s reads back as cpu %d, memory %d, disk %d, exists %t; want 100, 400, 10, true", b, cpu, mem, disk, ok)
	}

	acctest.PurgeOutsideJob(t, "", a)
	if _, _, _, ok := readJobResources(t, "", a); ok {
		t.Errorf("job %s still exists after its purge", a)
	}
	acctest.WaitPlaced(t, "", b, nodeID)
}
