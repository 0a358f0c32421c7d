package hold

import (
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

func res(cpu, mem, disk int64) capacity.Resources {
	return capacity.Resources{CPU: cpu, MemoryMB: mem, DiskMB: disk}
}

func TestSize(t *testing.T) {
	cases := []struct {
		name         string
		unused, want capacity.Resources
		ok           bool
		unheld       capacity.Resources
	}{
		{"exact", res(500, 256, 100), res(500, 256, 100), true, res(0, 0, 0)},
		{"minimums exactly", res(1, 10, 10), res(1, 10, 10), true, res(0, 0, 0)},
		{"no disk is raised to the minimum", res(500, 256, 0), res(500, 256, 10), true, res(0, 0, 0)},
		{"disk sliver raised", res(500, 256, 3), res(500, 256, 10), true, res(0, 0, 0)},
		{"nothing left", res(0, 0, 0), res(0, 0, 0), false, res(0, 0, 0)},
		{"cpu used up", res(0, 512, 100), res(0, 0, 0), false, res(0, 512, 100)},
		{"memory sliver", res(300, 9, 0), res(0, 0, 0), false, res(300, 9, 0)},
		{"disk only", res(0, 0, 2048), res(0, 0, 0), false, res(0, 0, 2048)},
		{"over-charged counts as zero", res(-5, 20, 0), res(0, 0, 0), false, res(0, 20, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Size(tc.unused)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Size(%v) = %v, %v; want %v, %v", tc.unused, got, ok, tc.want, tc.ok)
			}
			if u := Unheld(tc.unused); u != tc.unheld {
				t.Errorf("Unheld(%v) = %v; want %v", tc.unused, u, tc.unheld)
			}
		})
	}
}

func TestExcess(t *testing.T) {
	if got := Excess(res(500, 256, 10), res(500, 256, 0)); got != res(0, 0, 10) {
		t.Errorf("Excess = %v; want the raised disk", got)
	}
	if got := Excess(res(0, 0, 0), res(500, 256, 0)); got != (capacity.Resources{}) {
		t.Errorf("no hold has no excess, got %v", got)
	}
}

func TestBuildJobRoundTrip(t *testing.T) {
	const node = "0123456789abcdef-0000"
	spec := Spec{Namespace: "ops", NodeID: node, Name: "db", Driver: "exec", Held: res(700, 300, 10), Item: `{"version":1}`}
	job := BuildJob(spec)
	if *job.ID != "berth-hold-01234567-db" || *job.Namespace != "ops" || *job.Priority != Priority {
		t.Fatalf("unexpected identity: id %q ns %q priority %d", *job.ID, *job.Namespace, *job.Priority)
	}
	if u := job.TaskGroups[0].Update; u == nil || u.MaxParallel == nil || *u.MaxParallel != 0 {
		t.Fatal("a hold turns deployments off (max_parallel 0): a resize must not start a deployment")
	}
	got, driver, ok := Of(job)
	if !ok || got != spec.Held || driver != "exec" || job.Meta[MetaLedgerItem] != spec.Item {
		t.Fatalf("Of = %v %q %v; want %v exec true", got, driver, ok, spec.Held)
	}
	if !Matches(job, spec) {
		t.Fatal("a built job must match what it was built from")
	}
	for name, change := range map[string]func(*Spec){
		"size":   func(s *Spec) { s.Held.CPU++ },
		"driver": func(s *Spec) { s.Driver = "raw_exec" },
		"node":   func(s *Spec) { s.NodeID = "ffff" },
		"name":   func(s *Spec) { s.Name = "web" },
		"item":   func(s *Spec) { s.Item = `{"version":2}` },
	} {
		other := spec
		change(&other)
		if Matches(job, other) {
			t.Errorf("a different %s must not match", name)
		}
	}
	stopped := BuildJob(spec)
	stopped.Stop = ptr(true)
	if Matches(stopped, spec) {
		t.Error("a stopped hold must not match")
	}
	if IsHoldJob(nil) {
		t.Error("nil is no hold")
	}
	job.Meta[MetaKind] = "lease"
	if _, _, ok := Of(job); ok {
		t.Error("a job of another kind is no hold")
	}
}

func TestBuildJobNothingToHold(t *testing.T) {
	spec := Spec{Namespace: "default", NodeID: "abcd", Name: "tiny", Driver: "exec", Item: "x"}
	job := BuildJob(spec)
	if *job.TaskGroups[0].Count != 0 {
		t.Fatalf("count = %d; a reservation Nomad cannot hold keeps a job with no allocation", *job.TaskGroups[0].Count)
	}
	if r := job.TaskGroups[0].Tasks[0].Resources; *r.CPU < MinCPU || *r.MemoryMB < MinMemoryMB {
		t.Fatalf("the task must still be valid for Nomad: %+v", r)
	}
	if got, _, ok := Of(job); !ok || !got.IsZero() {
		t.Fatalf("Of = %v %v; a job with no allocation holds nothing", got, ok)
	}
	if !Matches(job, spec) {
		t.Fatal("must match its spec")
	}
}

func TestJobIDShortNode(t *testing.T) {
	if got := JobID("abc", "x"); got != "berth-hold-abc-x" {
		t.Fatalf("JobID = %q", got)
	}
}

// FuzzSize checks Size's promises for any budget: a hold never holds less
// than the budget, differs from it only in disk raised to the minimum, and
// always satisfies Nomad's minimums.
func FuzzSize(f *testing.F) {
	f.Add(int64(500), int64(256), int64(0))
	f.Add(int64(0), int64(9), int64(-3))
	f.Fuzz(func(t *testing.T, cpu, mem, disk int64) {
		unused := res(cpu, mem, disk)
		held, ok := Size(unused)
		if !ok {
			if !held.IsZero() {
				t.Fatalf("no hold but held %v", held)
			}
			return
		}
		if held.CPU != cpu || held.MemoryMB != mem || held.DiskMB < disk || held.DiskMB < MinDiskMB {
			t.Fatalf("Size(%v) = %v", unused, held)
		}
		if held.CPU < MinCPU || held.MemoryMB < MinMemoryMB {
			t.Fatalf("Size(%v) = %v is below Nomad's minimums", unused, held)
		}
		if e := Excess(held, unused); e.CPU != 0 || e.MemoryMB != 0 || e.DiskMB > MinDiskMB {
			t.Fatalf("excess %v", e)
		}
	})
}
