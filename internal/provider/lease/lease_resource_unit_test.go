package lease

import (
	"github.com/berthhq/terraform-provider-berth/internal/acctest"

	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// These unit tests drive leaseResource against a fake Nomad for
// what a real agent cannot be made to do on cue: a job changed between
// plan and apply, and a register reply lost as the deadline passes.

// fakeLeaseNomad serves one lease job: reads, allocations and check-and-set
// registrations, like Nomad's job endpoints.
type fakeLeaseNomad struct {
	t         *testing.T
	name      string
	mu        sync.Mutex
	job       *api.Job // nil: no such job
	registers []api.JobRegisterRequest
	// onRegister runs after a registration is stored, before the reply.
	onRegister func()
	// loseReply: after a stored registration, no reply is sent until the
	// caller gives up (its context ends).
	loseReply bool
	// hangReads: job reads never answer until the caller gives up.
	hangReads bool
	// earlier are versions before job, oldest first (Nomad's version
	// history); allocs are the job's allocations.
	earlier []*api.Job
	allocs  []*api.AllocationListStub
}

// versions is the job's history as Nomad answers it: newest first.
func (f *fakeLeaseNomad) versions() []*api.Job {
	out := []*api.Job{}
	if f.job != nil {
		out = append(out, f.job)
	}
	for i := len(f.earlier) - 1; i >= 0; i-- {
		out = append(out, f.earlier[i])
	}
	return out
}

func (f *fakeLeaseNomad) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/job/"+f.name:
		hang, job := f.hangReads, f.job
		f.mu.Unlock()
		if hang {
			<-r.Context().Done()
			return
		}
		if job == nil {
			http.Error(w, "job not found", http.StatusNotFound)
			return
		}
		writeJSON(w, job)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/job/"+f.name+"/allocations":
		allocs := append([]*api.AllocationListStub{}, f.allocs...)
		f.mu.Unlock()
		writeJSON(w, allocs)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/job/"+f.name+"/versions":
		versions := f.versions()
		f.mu.Unlock()
		writeJSON(w, api.JobVersionsResponse{Versions: versions})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/allocation/"):
		// The timer's log (the result's signature): none in this fake.
		f.mu.Unlock()
		http.Error(w, "alloc not found", http.StatusNotFound)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/evaluation/"):
		f.mu.Unlock()
		writeJSON(w, api.Evaluation{ID: "eval-1", Status: "pending"})
	case r.Method == http.MethodPut && r.URL.Path == "/v1/jobs":
		f.register(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/nodes":
		// The driver check before a create: a cluster without nodes yet
		// skips it.
		f.mu.Unlock()
		writeJSON(w, []*api.NodeListStub{})
	default:
		f.mu.Unlock()
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected", http.StatusNotFound)
	}
}

// register is called with f.mu held and releases it.
func (f *fakeLeaseNomad) register(w http.ResponseWriter, r *http.Request) {
	var req api.JobRegisterRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.registers = append(f.registers, req)
	index := uint64(0)
	if f.job != nil {
		index = *f.job.JobModifyIndex
	}
	if req.EnforceIndex && req.JobModifyIndex != index {
		f.mu.Unlock()
		http.Error(w, fmt.Sprintf("Enforcing job modify index %d: job exists with conflicting job modify index: %d",
			req.JobModifyIndex, index), http.StatusBadRequest)
		return
	}
	if f.job != nil {
		f.earlier = append(f.earlier, f.job)
	}
	f.job = nomadStored(req.Job, index+1, time.Now().UnixNano())
	stored, onRegister, lose := *f.job.JobModifyIndex, f.onRegister, f.loseReply
	f.mu.Unlock()
	if onRegister != nil {
		onRegister()
	}
	if lose {
		<-r.Context().Done()
		return
	}
	writeJSON(w, api.JobRegisterResponse{EvalID: "eval-1", JobModifyIndex: stored})
}

// emptyPrivate is an empty private state of the framework's (internal)
// type, as the framework gives every response.
func emptyPrivate[P any](*P) *P { return new(P) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// nomadStored is job as Nomad stores it: canonicalised, with an index,
// a submit time (nanoseconds) and a status.
func nomadStored(job *api.Job, index uint64, submit int64) *api.Job {
	job.Canonicalize()
	job.JobModifyIndex, job.SubmitTime, job.Status = &index, &submit, new("running")
	return job
}

// leaseUpdateFixture is a signed 1h lease created a minute before now,
// stored in the fake at index 10, and the resource under test with its
// clock at now.
type leaseUpdateFixture struct {
	r     *leaseResource
	fake  *fakeLeaseNomad
	lease lease.Lease
	state leaseModel
	now   time.Time
}

func newLeaseUpdateFixture(t *testing.T) *leaseUpdateFixture {
	t.Helper()
	ctx := context.Background()
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	l := lease.Lease{Name: "berth-unit-lease", Namespace: "default", CreatedAt: now.Add(-time.Minute), Duration: time.Hour,
		Workload: lease.Workload{Driver: "raw_exec", Command: "/bin/sleep", Args: []string{"3600"}, CPU: 50, Memory: 32, Disk: 150},
		SignedAt: now.Add(-time.Minute + 1234*time.Microsecond)}
	if l, err = lease.Sign(l, key); err != nil {
		t.Fatal(err)
	}
	fake := &fakeLeaseNomad{t: t, name: l.Name, job: nomadStored(lease.BuildJob(l, "raw_exec", l.CreatedAt), 10, l.CreatedAt.UnixNano())}
	srv := httptest.NewServer(acctest.AnswerVersion(fake))
	t.Cleanup(srv.Close)
	client, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	f := &leaseUpdateFixture{
		r:     &leaseResource{ResourceBase: shared.ResourceBase{Data: &shared.ProviderData{Nomad: client, SigningKey: key, LeaseDriver: "raw_exec"}}, now: func() time.Time { return now }},
		fake:  fake,
		lease: l,
		now:   now,
	}
	var diags diag.Diagnostics
	f.state = leaseModel{
		Name: types.StringValue(l.Name), Duration: shared.DurationValue(l.Duration), NodeReservation: types.StringNull(),
		Renew: types.BoolValue(true), WaitForRunning: types.BoolValue(true),
		Workload: workloadObject(ctx, l.Workload, &diags),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
	f.state.recordRegistered(ctx, l, 10, now, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return f
}

// update runs Update for a new duration the way Terraform calls it after
// a plan made against f.state, and returns the diagnostics and the state
// Update left.
func (f *leaseUpdateFixture) update(t *testing.T, ctx context.Context, duration time.Duration) (diag.Diagnostics, leaseModel) {
	t.Helper()
	plan := f.state
	plan.Duration = shared.DurationValue(duration)
	plan.ExpiresAt = timetypes.NewRFC3339ValueMust(f.lease.CreatedAt.Add(duration).Format(time.RFC3339))
	plan.Signature, plan.User = types.StringUnknown(), types.StringUnknown()
	plan.Verified, plan.Expired = types.BoolUnknown(), types.BoolUnknown()
	plan.Result, plan.JobModifyIndex = types.ObjectUnknown(resultAttrTypes()), types.Int64Unknown()

	schema := leaseSchema(ctx)
	null := tftypes.NewValue(schema.Type().TerraformType(ctx), nil)
	req := resource.UpdateRequest{Plan: tfsdk.Plan{Schema: schema, Raw: null}, State: tfsdk.State{Schema: schema, Raw: null}}
	diags := req.Plan.Set(ctx, &plan)
	diags.Append(req.State.Set(ctx, &f.state)...)
	if diags.HasError() {
		t.Fatal(diags)
	}
	// Like the framework: the response starts as the prior state.
	resp := resource.UpdateResponse{State: tfsdk.State{Schema: schema, Raw: req.State.Raw.Copy()}}
	resp.Private = emptyPrivate(resp.Private)
	f.r.Update(ctx, req, &resp)
	var got leaseModel
	if d := resp.State.Get(ctx, &got); d.HasError() {
		t.Fatalf("state after Update: %v", d)
	}
	if !resp.State.Raw.IsFullyKnown() {
		t.Errorf("state after Update has unknown values: %s", resp.State.Raw)
	}
	return resp.Diagnostics, got
}

func TestLeaseUpdate_checkAndSetAgainstState(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	diags, got := f.update(t, context.Background(), 2*time.Hour)
	if diags.HasError() {
		t.Fatalf("Update: %v", diags)
	}
	if n := len(f.fake.registers); n != 1 {
		t.Fatalf("%d registrations, want 1", n)
	}
	if reg := f.fake.registers[0]; !reg.EnforceIndex || reg.JobModifyIndex != 10 {
		t.Errorf("registered with EnforceIndex %v at index %d, want check-and-set at 10", reg.EnforceIndex, reg.JobModifyIndex)
	}
	want := f.lease.CreatedAt.Add(2 * time.Hour).Format(time.RFC3339)
	if got.ExpiresAt.ValueString() != want || got.JobModifyIndex.ValueInt64() != 11 || !got.Verified.ValueBool() {
		t.Errorf("state: expires_at %s (want %s), job_modify_index %s (want 11), verified %s",
			got.ExpiresAt, want, got.JobModifyIndex, got.Verified)
	}
	if f.fake.job.Meta[lease.MetaExpiresAt] != want {
		t.Errorf("expires_at in Nomad = %q, want %q", f.fake.job.Meta[lease.MetaExpiresAt], want)
	}
}

// TestLeaseUpdate_jobChangedAfterPlan: a job edited between plan and apply
// must not be overwritten and re-signed.
func TestLeaseUpdate_jobChangedAfterPlan(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	for _, task := range f.fake.job.TaskGroups[0].Tasks {
		if task.Name == lease.WorkloadTask {
			task.Env = map[string]string{"SNEAKY": "1"}
		}
	}
	f.fake.job.JobModifyIndex = new(uint64(12))
	diags, got := f.update(t, context.Background(), 2*time.Hour)
	if !diags.HasError() || !strings.Contains(fmt.Sprint(diags), "Job changed in Nomad since the last refresh") ||
		!strings.Contains(fmt.Sprint(diags), "workload.env.SNEAKY") {
		t.Fatalf("diagnostics = %v, want the job-changed error naming workload.env.SNEAKY", diags)
	}
	if n := len(f.fake.registers); n != 0 {
		t.Errorf("%d registrations after a conflicting change, want none", n)
	}
	if got.JobModifyIndex.ValueInt64() != 10 || got.ExpiresAt.ValueString() != f.state.ExpiresAt.ValueString() {
		t.Errorf("state changed by a failed update: index %s, expires_at %s", got.JobModifyIndex, got.ExpiresAt)
	}
}

// TestLeaseUpdate_indexMovedNothingChanged: a job registered again with
// the same content (its index moved) is no conflict.
func TestLeaseUpdate_indexMovedNothingChanged(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	f.fake.job.JobModifyIndex = new(uint64(12))
	diags, got := f.update(t, context.Background(), 2*time.Hour)
	if diags.HasError() {
		t.Fatalf("Update: %v", diags)
	}
	if reg := f.fake.registers[0]; reg.JobModifyIndex != 12 {
		t.Errorf("registered at index %d, want 12", reg.JobModifyIndex)
	}
	if got.JobModifyIndex.ValueInt64() != 13 {
		t.Errorf("job_modify_index = %s, want 13", got.JobModifyIndex)
	}
}

// TestLeaseUpdate_readBackAfterDeadline: the apply's deadline passes just
// as Nomad takes the registration. The read-back uses a fresh context, so
// state holds what Nomad holds, with nothing unknown.
func TestLeaseUpdate_readBackAfterDeadline(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.fake.onRegister, f.fake.loseReply = cancel, true
	_, got := f.update(t, ctx, 2*time.Hour)
	// Whether the reply still arrived or not, the job in Nomad is the
	// updated one, and so must state be.
	want := f.lease.CreatedAt.Add(2 * time.Hour).Format(time.RFC3339)
	if got.JobModifyIndex.ValueInt64() != 11 || got.ExpiresAt.ValueString() != want || !got.Verified.ValueBool() {
		t.Errorf("state: job_modify_index %s (want 11), expires_at %s (want %s), verified %s",
			got.JobModifyIndex, got.ExpiresAt, want, got.Verified)
	}
}

// TestLeaseCreate_registrationReplyLost: Nomad stores the new lease but the
// reply never arrives before the deadline. The lease must be recorded
// (tainted by the error), not orphaned in Nomad.
func TestLeaseCreate_registrationReplyLost(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	f.fake.job = nil
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.fake.onRegister, f.fake.loseReply = cancel, true

	resp := runCreate(ctx, t, f, f.state)

	if !resp.Diagnostics.HasError() {
		t.Error("Create reported no error for a registration whose reply was lost")
	}
	if resp.State.Raw.IsNull() {
		t.Fatalf("the lease Nomad holds was not recorded in state (diagnostics: %v)", resp.Diagnostics)
	}
	if !resp.State.Raw.IsFullyKnown() {
		t.Errorf("state has unknown values: %s", resp.State.Raw)
	}
	var got leaseModel
	if d := resp.State.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	held := f.fake.job
	if got.CreatedAt.ValueString() != held.Meta[lease.MetaCreatedAt] || got.JobModifyIndex.ValueInt64() != int64(*held.JobModifyIndex) ||
		got.Signature.ValueString() != held.Meta[lease.MetaSignature] || !got.Verified.ValueBool() {
		t.Errorf("state: created_at %s, job_modify_index %s, verified %s; Nomad holds created_at %s at index %d",
			got.CreatedAt, got.JobModifyIndex, got.Verified, held.Meta[lease.MetaCreatedAt], *held.JobModifyIndex)
	}
}

// TestLeaseUpdate_timeoutsUpdateBoundsTheCall: against a Nomad that never
// answers, Update gives up after timeouts.update instead of its default.
func TestLeaseUpdate_timeoutsUpdateBoundsTheCall(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	f.fake.hangReads = true
	f.state.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringNull(), "update": types.StringValue("200ms"), "delete": types.StringNull()})}
	done := make(chan diag.Diagnostics, 1)
	go func() {
		diags, _ := f.update(t, context.Background(), 2*time.Hour)
		done <- diags
	}()
	select {
	case diags := <-done:
		if !diags.HasError() || !strings.Contains(fmt.Sprint(diags), "Could not read the lease") {
			t.Errorf("diagnostics = %v, want the read to fail at the deadline", diags)
		}
		if n := len(f.fake.registers); n != 0 {
			t.Errorf("%d registrations, want none", n)
		}
	case <-time.After(2 * time.Minute):
		// Far beyond 200ms, far below the 10m default: not a race.
		t.Fatal("Update ignored timeouts.update = 200ms")
	}
}

// TestLeaseRefresh_expiryByInjectedClock: whether a read calls the lease
// expired is decided by the resource's clock, at chosen instants.
func TestLeaseRefresh_expiryByInjectedClock(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	end := f.lease.ExpiresAt()
	for _, tt := range []struct {
		now         time.Time
		wantExpired bool
		wantState   string
	}{
		{end.Add(-time.Second), false, resultPending},
		{end, true, resultExpired},
		{end.Add(time.Hour), true, resultExpired},
	} {
		f.r.now = func() time.Time { return tt.now }
		m := f.state
		var diags diag.Diagnostics
		if f.r.refresh(context.Background(), &m, &leaseRecord{}, &diags) != shared.ObjectRead || diags.HasError() {
			t.Fatalf("refresh: %v", diags)
		}
		state := m.Result.Attributes()["state"].(types.String).ValueString()
		if m.Expired.ValueBool() != tt.wantExpired || state != tt.wantState {
			t.Errorf("at %s: expired %s, result.state %q; want %v, %q", tt.now.Sub(end), m.Expired, state, tt.wantExpired, tt.wantState)
		}
	}
}
