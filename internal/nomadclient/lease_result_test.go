package nomadclient

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAllocationJob: the job an allocation ran comes back as a lease job
// view; an allocation Nomad no longer has is nil, not an error.
func TestAllocationJob(t *testing.T) {
	f := newFakeNomad(t)
	l := lease.Lease{Name: "train", Namespace: "default", CreatedAt: time.Unix(1735700000, 0).UTC(), Duration: time.Hour,
		Workload: lease.Workload{Driver: "raw_exec", Command: "/bin/sleep", CPU: 50, Memory: 32}}
	f.handle("GET /v1/allocation/a1", replyJSON(api.Allocation{ID: "a1", Namespace: "default", JobID: "train",
		Job: lease.BuildJob(l, "", l.CreatedAt)}))
	f.handle("GET /v1/allocation/gone", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "alloc not found", http.StatusNotFound)
	})
	c := f.client()
	job, err := c.AllocationJob(t.Context(), "default", "a1")
	if err != nil || job == nil {
		t.Fatalf("AllocationJob(a1) = %v, %v", job, err)
	}
	if got, err := job.Lease(); err != nil || got.Name != "train" || !got.CreatedAt.Equal(l.CreatedAt) {
		t.Fatalf("the allocation's lease: %+v, %v", got, err)
	}
	if job, err := c.AllocationJob(t.Context(), "default", "gone"); err != nil || job != nil {
		t.Fatalf("AllocationJob(gone) = %v, %v; want nil, nil", job, err)
	}
	if job, err := c.AllocationJob(t.Context(), "other", "a1"); err != nil || job != nil {
		t.Fatalf("AllocationJob in another namespace = %v, %v; want nil, nil", job, err)
	}
}
