package instance

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestJobTypeRoundTrip(t *testing.T) {
	batch := minimalSpec()
	batch.Type = TypeBatch
	batchCount := fullSpec()
	batchCount.Type = TypeBatch
	batchCount.Update.Canary = 0
	system := minimalSpec()
	system.Type = TypeSystem
	system.Replicas = nil
	service := minimalSpec()
	service.Type = TypeService

	for name, spec := range map[string]Spec{"batch": batch, "batch with everything": batchCount, "system": system, "explicit service": service} {
		t.Run(name, func(t *testing.T) {
			if errs := Validate(spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			job := BuildJob(spec, 1)
			if got := deref(job.Type); got != spec.JobType() {
				t.Errorf("job type = %q, want %q", got, spec.JobType())
			}
			if spec.Type == TypeBatch && job.TaskGroups[0].Update != nil {
				t.Errorf("batch job has an update block: %+v", job.TaskGroups[0].Update)
			}
			if spec.Type == TypeSystem && deref(job.TaskGroups[0].Count) != 1 {
				t.Errorf("system job count = %d, want 1", deref(job.TaskGroups[0].Count))
			}
			got, unsupported := readBack(simulateNomad(t, job), spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			want := Normalize(spec)
			if want.Replicas == nil && spec.Type != TypeSystem {
				want.Replicas = ptr(1)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s\ngot  %#v\nwant %#v", strings.Join(Diff(want, got), "\n"), got, want)
			}
		})
	}
}

func TestNormalizeJobType(t *testing.T) {
	s := minimalSpec()
	if got := Normalize(s).Type; got != TypeService {
		t.Errorf(`"" normalizes to %q, want "service"`, got)
	}
	s.Type = TypeBatch
	if got := Normalize(s).Update; got != (Update{}) {
		t.Errorf("a batch job's update normalizes to %+v, want none", got)
	}
	s.Type = TypeSystem
	if got := Normalize(s).Replicas; got != nil {
		t.Errorf("a system job's count normalizes to %d, want unset", *got)
	}
	// A change of type is a difference Diff names.
	a, b := minimalSpec(), minimalSpec()
	b.Type = TypeBatch
	if d := Diff(a, b); len(d) == 0 || !strings.HasPrefix(d[0], `type: "service" -> "batch"`) {
		t.Errorf("Diff = %q", d)
	}
}

func TestValidateSystemJob(t *testing.T) {
	s := minimalSpec()
	s.Type = TypeSystem
	s.Replicas = ptr(2)
	s.PinNode = "node-1"
	s.Update.Canary = 1
	var paths []string
	for _, e := range Validate(s) {
		paths = append(paths, dotted(e.Path))
	}
	want := []string{"replicas", "node_reservation", "update.canary"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("error paths = %q, want %q", paths, want)
	}
	s.Replicas, s.PinNode, s.Update.Canary = nil, "", 0
	if errs := Validate(s); len(errs) > 0 {
		t.Errorf("valid system spec: %+v", errs)
	}
	// The same settings are fine on a service job.
	svc := minimalSpec()
	svc.Replicas, svc.PinNode, svc.Update.Canary = ptr(2), "node-1", 1
	if errs := Validate(svc); len(errs) > 0 {
		t.Errorf("valid service spec: %+v", errs)
	}
}

func dotted(p []any) string {
	parts := make([]string, len(p))
	for i, e := range p {
		parts[i], _ = e.(string)
	}
	return strings.Join(parts, ".")
}

func TestSpecFromJobType(t *testing.T) {
	job := simulateNomad(t, BuildJob(minimalSpec(), 1))
	job.Type = ptr("sysbatch")
	if _, unsupported := SpecFromJob(job); len(unsupported) != 1 || !strings.Contains(unsupported[0], `job type is "sysbatch"`) {
		t.Errorf("unsupported = %q", unsupported)
	}
	job.Type = nil
	if got, _ := SpecFromJob(job); got.Type != TypeService {
		t.Errorf("a job without a type reads as %q", got.Type)
	}
}

func TestDeriveBatchStatus(t *testing.T) {
	type allocs = []*api.AllocationListStub
	tests := []struct {
		name    string
		stopped bool
		version uint64
		allocs  allocs
		want    Status
	}{
		{"not placed yet", false, 0, nil, StatusPending},
		{"stopped", true, 0, allocs{alloc("complete", 0)}, StatusStopped},
		{"running", false, 0, allocs{alloc("running", 0)}, StatusRunning},
		{"one done, one running", false, 0, allocs{alloc("complete", 0), alloc("running", 0)}, StatusRunning},
		{"completed", false, 0, allocs{alloc("complete", 0), alloc("complete", 0)}, StatusComplete},
		{"one failed", false, 0, allocs{alloc("complete", 0), alloc("failed", 0)}, StatusFailed},
		{"lost", false, 0, allocs{alloc("lost", 0)}, StatusFailed},
		{"failed, then rescheduled and completed", false, 0, allocs{alloc("failed", 0, replaced), alloc("complete", 0)}, StatusComplete},
		{"failed, being rescheduled", false, 0, allocs{alloc("failed", 0, replaced), alloc("pending", 0)}, StatusPending},
		{"old version failed, new completed", false, 1, allocs{alloc("failed", 0), alloc("complete", 1)}, StatusComplete},
		{"old version completed, new failed", false, 1, allocs{alloc("complete", 0), alloc("failed", 1)}, StatusFailed},
		{"new version not placed yet", false, 1, allocs{alloc("complete", 0)}, StatusPending},
		{"stopped on purpose", false, 0, allocs{alloc("complete", 0, desiredStop)}, StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deriveBatchStatus(tt.stopped, tt.version, tt.allocs); got != tt.want {
				t.Errorf("status = %q, want %q", got, tt.want)
			}
		})
	}
	// Observe picks the rule by job type.
	job := &api.Job{Type: ptr(TypeBatch), Version: ptr(uint64(0))}
	if got := Observe(job, allocs{alloc("complete", 0)}).Status; got != StatusComplete {
		t.Errorf("Observe of a completed batch job = %q", got)
	}
	job.Type = ptr(TypeService)
	if got := Observe(job, allocs{alloc("complete", 0)}).Status; got != StatusPending {
		t.Errorf("Observe of a service job with a completed alloc = %q", got)
	}
}
