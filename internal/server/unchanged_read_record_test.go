package server

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// appliedWithJob runs the server's record step on an apply that answered
// state with private, the apply having read back Nomad's job as it is now.
func (p *readProbe) appliedWithJob(t *testing.T, private []byte) *tfprotov6.ApplyResourceChangeResponse {
	t.Helper()
	data := p.srv.configured.Load()
	if data == nil {
		t.Fatal("provider not configured")
	}
	job, err := data.Nomad.GetJob(context.Background(), "default", "bench-1")
	if err != nil || job == nil {
		t.Fatalf("reading the job back: %v", err)
	}
	ctx, applied := shared.WithAppliedJob(context.Background())
	shared.RecordAppliedJob(ctx, job)
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: p.dv(p.state), Private: private, NewIdentity: p.identity}
	p.srv.reads.recordApplied(ctx, p.srv.frameworkServer.ReadResource,
		&tfprotov6.ApplyResourceChangeRequest{TypeName: instanceTypeName()}, resp, applied)
	return resp
}

// The read that checks an apply's state reads the job the apply read back:
// it records without asking Nomad again, and the next refresh takes the
// shortcut.
func TestUnchangedReads_applyRecordsFromItsReadBack(t *testing.T) {
	p := newReadProbe(t, newServer("test", false), nil)
	requests := p.cluster.requestCount()
	resp := p.appliedWithJob(t, p.private)
	requests = p.cluster.requestCount() - requests - 1 // the test's own read-back
	if seen, ok := privateReadSeen(resp.Private); !ok || seen.Index != 42 || len(resp.Diagnostics) > 0 {
		t.Fatalf("the apply recorded %+v %v (diagnostics %v), want index 42", seen, ok, resp.Diagnostics)
	}
	if requests != 0 {
		t.Errorf("recording the apply made %d requests, want none", requests)
	}
	before := p.srv.reads.taken.Load()
	p.read(t, p.state, resp.Private)
	if p.srv.reads.taken.Load() != before+1 {
		t.Error("the refresh after the recorded apply did not take the shortcut")
	}
}

// In verify mode the check also reads Nomad, and a job read back that
// Nomad contradicts at the same modify index (here: the count) is an
// error, not a record.
func TestUnchangedReads_verifyCatchesAStaleReadBack(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	requests := p.cluster.requestCount()
	if resp := p.appliedWithJob(t, p.private); len(resp.Diagnostics) > 0 {
		t.Fatalf("an agreeing read-back reported %v", resp.Diagnostics[0].Detail)
	} else if _, ok := privateReadSeen(resp.Private); !ok {
		t.Fatal("an agreeing read-back recorded nothing")
	}
	if got := p.cluster.requestCount() - requests; got != 2 {
		t.Errorf("verify mode made %d requests, want the test's read-back and one read of Nomad", got)
	}

	data := p.srv.configured.Load()
	job, err := data.Nomad.GetJob(context.Background(), "default", "bench-1")
	if err != nil || job == nil {
		t.Fatal(err)
	}
	p.cluster.setJob(p.spec, 3, 0, 42) // a job Nomad never held at index 42 beside the one read back
	ctx, applied := shared.WithAppliedJob(context.Background())
	shared.RecordAppliedJob(ctx, job)
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: p.dv(p.state), Private: p.private, NewIdentity: p.identity}
	p.srv.reads.recordApplied(ctx, p.srv.frameworkServer.ReadResource,
		&tfprotov6.ApplyResourceChangeRequest{TypeName: instanceTypeName()}, resp, applied)
	if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Summary, "read of the applied job disagrees") {
		t.Fatalf("verify did not catch the disagreeing read-back: %+v", resp.Diagnostics)
	}
	if seen, ok := privateReadSeen(resp.Private); ok {
		t.Errorf("a disagreeing read-back recorded %+v", seen)
	}
}
