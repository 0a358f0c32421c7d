package server

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	instancefamily "github.com/berthhq/terraform-provider-berth/internal/provider/instance"
)

// fakeInstanceCluster is a Nomad that answers what plans and refreshes of
// the bench instance (bench-1) ask: its job, the secrets Variables under
// its path, and the node list of the driver check. The job is what
// instance.BuildJob registers, at the count and modify index a test sets.
type fakeInstanceCluster struct {
	t        *testing.T
	mu       sync.Mutex
	job      []byte
	vars     map[string]bool
	requests int
	url      string
	// kids are the key IDs of the cluster's workload identity keys, the
	// cluster's identity in berth's cluster key; jwksReads counts reads of
	// them (not in requests: a client reads them once).
	kids      []string
	jwksReads int
}

func newFakeInstanceCluster(t *testing.T) *fakeInstanceCluster {
	f := &fakeInstanceCluster{t: t, vars: map[string]bool{}, kids: []string{"6f1c2a9e-0b7d-4e3a-8c5f-2d9b1e4a7c30"}}
	srv := httptest.NewServer(acctest.AnswerVersion(http.HandlerFunc(f.serve)))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *fakeInstanceCluster) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && r.URL.Path == "/.well-known/jwks.json" {
		f.jwksReads++
		_ = json.NewEncoder(w).Encode(fakeJWKS(f.kids))
		return
	}
	f.requests++
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/job/bench-1" && f.job != nil:
		_, _ = w.Write(f.job)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/jobs":
		var stubs []map[string]any
		if f.job != nil {
			var j struct {
				ID             string
				JobModifyIndex uint64
			}
			_ = json.Unmarshal(f.job, &j)
			stubs = append(stubs, map[string]any{"ID": j.ID, "Namespace": "default", "JobModifyIndex": j.JobModifyIndex})
		}
		_ = json.NewEncoder(w).Encode(stubs)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/vars":
		var out []api.VariableMetadata
		for p, present := range f.vars {
			if present && strings.HasPrefix(p, r.URL.Query().Get("prefix")) {
				out = append(out, api.VariableMetadata{Namespace: "default", Path: p})
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/nodes":
		_, _ = w.Write([]byte(`[{"ID":"n1","Status":"ready","Drivers":{"raw_exec":{"Detected":true,"Healthy":true}}}]`))
	default:
		f.t.Errorf("unexpected request: %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

// fakeJWKS is a key set of one Ed25519 key (all zero: only the IDs
// matter) per key ID.
func fakeJWKS(kids []string) map[string]any {
	keys := make([]map[string]string, 0, len(kids))
	for _, kid := range kids {
		keys = append(keys, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": kid, "alg": "EdDSA", "use": "sig",
			"x": base64.RawURLEncoding.EncodeToString(make([]byte, ed25519.PublicKeySize))})
	}
	return map[string]any{"keys": keys}
}

// setJob makes Nomad hold spec's job with count allocations at version
// and modify index.
func (f *fakeInstanceCluster) setJob(spec instance.Spec, count int, version, index uint64) {
	spec.Replicas = nil // the count is Nomad's here: an autoscaler may have moved it
	job := instance.BuildJob(spec, count)
	job.Canonicalize()
	job.Version, job.JobModifyIndex, job.ModifyIndex = &version, &index, &index
	job.Status = acctest.Ptr("running")
	b, err := json.Marshal(job)
	if err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	f.job = b
	f.mu.Unlock()
}

func (f *fakeInstanceCluster) setVariable(path string, present bool) {
	f.mu.Lock()
	f.vars[path] = present
	f.mu.Unlock()
}

func (f *fakeInstanceCluster) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// readProbe is a provider server (verify on) against a fake cluster, with
// the bench instance as a full read of its job answered it.
type readProbe struct {
	*planProbe
	cluster *fakeInstanceCluster
	srv     *server
	spec    instance.Spec
	// state and private are what the first full read answered (index 42,
	// one allocation).
	state   tftypes.Value
	private []byte
}

// newReadProbe starts the probe; with secretVersion, the bench service
// has secrets at that version (its Variable absent until a test adds it).
func newReadProbe(t *testing.T, factory func() (tfprotov6.ProviderServer, error), secretVersion *int) *readProbe {
	t.Helper()
	cluster := newFakeInstanceCluster(t)
	p := newPlanProbeAt(t, factory, cluster.url)
	prior := p.state
	if secretVersion != nil {
		prior = withValueAt(t, prior, tftypes.NewValue(tftypes.Number, big.NewFloat(float64(*secretVersion))),
			"services", "app", "secret_env_wo_version")
	}
	spec, d, err := instancefamily.SpecOfState(context.Background(), prior)
	if err != nil || d.HasError() {
		t.Fatal(err, d)
	}
	cluster.setJob(spec, 1, 0, 42)
	rp := &readProbe{planProbe: p, cluster: cluster, srv: p.srv.(*server), spec: spec}
	resp := rp.read(t, prior, nil)
	rp.state, rp.private = rp.value(t, resp.NewState), resp.Private
	return rp
}

func (p *readProbe) value(t *testing.T, dv *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	v, err := dv.Unmarshal(p.typ)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// read refreshes state (with private) through the server and fails on
// any diagnostic: with verify on, a shortcut answer that differs from the
// framework's is an error diagnostic.
func (p *readProbe) read(t *testing.T, state tftypes.Value, private []byte) *tfprotov6.ReadResourceResponse {
	t.Helper()
	resp := p.readDiag(t, state, private)
	for _, d := range resp.Diagnostics {
		t.Errorf("refresh diagnostic: %s: %s", d.Summary, d.Detail)
	}
	return resp
}

func (p *readProbe) readDiag(t *testing.T, state tftypes.Value, private []byte) *tfprotov6.ReadResourceResponse {
	t.Helper()
	if data := p.srv.configured.Load(); data != nil {
		data.Nomad.ForgetJobListings() // each refresh here plays a command of its own
	}
	resp, err := p.srv.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: instanceTypeName(), CurrentState: p.dv(state), Private: private, CurrentIdentity: p.identity,
	})
	if err != nil || resp.NewState == nil {
		t.Fatalf("refresh: %v, %+v", err, resp)
	}
	return resp
}

// applied runs the server's record step on an apply that answered state
// with private and diags, and returns the private state it leaves.
func (p *readProbe) applied(t *testing.T, state tftypes.Value, private []byte, diags ...*tfprotov6.Diagnostic) []byte {
	t.Helper()
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: p.dv(state), Private: private, NewIdentity: p.identity, Diagnostics: diags}
	p.srv.reads.recordApplied(context.Background(), p.srv.frameworkServer.ReadResource,
		&tfprotov6.ApplyResourceChangeRequest{TypeName: instanceTypeName()}, resp, nil)
	return resp.Private
}

// recordedAsBefore is private with the record berth made before issue 33
// for state at index: what an apply or a read of it left, unchecked.
func (p *readProbe) recordedAsBefore(t *testing.T, state tftypes.Value, private []byte, index uint64) []byte {
	t.Helper()
	seen := p.srv.reads.stamped(context.Background(), &readSeen{Namespace: "default", Name: "bench-1", Index: index, State: stateHash(p.dv(state).MsgPack)})
	out, err := withReadSeen(private, seen)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantDisagreement fails unless the refresh of state with private takes
// the shortcut and verification reports it differs from the framework.
func (p *readProbe) wantDisagreement(t *testing.T, state tftypes.Value, private []byte) {
	t.Helper()
	before := p.srv.reads.taken.Load()
	resp := p.readDiag(t, state, private)
	if p.srv.reads.taken.Load() == before || len(resp.Diagnostics) == 0 ||
		!strings.Contains(resp.Diagnostics[0].Summary, "unchanged-read shortcut disagrees") {
		t.Fatalf("an unchecked record was not caught disagreeing (taken %d -> %d): %+v", before, p.srv.reads.taken.Load(), resp.Diagnostics)
	}
}

func tfNum(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n))) }

// A full read records, and the next refresh of the unchanged job takes the
// shortcut and agrees with the framework's (verify on).
func TestUnchangedReads_fullReadRecords(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	if _, ok := privateReadSeen(p.private); !ok {
		t.Fatalf("the full read recorded nothing: %s", p.private)
	}
	resp := p.read(t, p.state, p.private)
	if got := p.srv.reads.taken.Load(); got != 1 {
		t.Fatalf("shortcut taken %d times, want 1", got)
	}
	if !p.value(t, resp.NewState).Equal(p.state) {
		t.Error("the shortcut answered another state")
	}
}

// Issue 33, 6(a): the apply kept replicas = 1 from the plan
// (UseStateForUnknown) while an autoscaler had scaled the job to 3. The
// apply's state is not what a read answers, so it is not recorded, and the
// next refresh reads 3, as the framework does.
func TestUnchangedReads_applyKeepsACountNomadMoved(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	p.cluster.setJob(p.spec, 3, 1, 43)
	applied := withValueAt(t, withValueAt(t, p.state, tfNum(43), "job_modify_index"), tfNum(1), "job_version")
	if got := valueAt(t, applied, "replicas"); !got.Equal(tfNum(1)) {
		t.Fatalf("the applied state's replicas is %v, want the kept 1", got)
	}
	p.wantDisagreement(t, applied, p.recordedAsBefore(t, applied, p.private, 43))

	private := p.applied(t, applied, p.private)
	if seen, ok := privateReadSeen(private); ok {
		t.Fatalf("the apply recorded %+v for a count Nomad does not hold", seen)
	}
	before := p.srv.reads.taken.Load()
	resp := p.read(t, applied, private)
	if p.srv.reads.taken.Load() != before {
		t.Error("the refresh took the shortcut")
	}
	if got := valueAt(t, p.value(t, resp.NewState), "replicas"); !got.Equal(tfNum(3)) {
		t.Errorf("the refresh answered replicas %v, want Nomad's 3", got)
	}

	// An apply whose state a read answers unchanged is recorded (one more
	// read of the job), and the refresh after it takes the shortcut.
	p.cluster.setJob(p.spec, 1, 1, 43)
	requests := p.cluster.requestCount()
	private = p.applied(t, applied, p.private)
	if seen, ok := privateReadSeen(private); !ok || seen.Index != 43 {
		t.Fatalf("the apply Nomad agrees with recorded %+v %v, want index 43", seen, ok)
	}
	if got := p.cluster.requestCount() - requests; got != 1 {
		t.Errorf("recording the apply made %d requests, want 1 read of the job", got)
	}
	before = p.srv.reads.taken.Load()
	p.read(t, applied, private)
	if p.srv.reads.taken.Load() != before+1 {
		t.Error("the refresh after a recorded apply did not take the shortcut")
	}
}

// Issue 33, 6(b): a write whose read-back failed answers nulls (here
// job_version) and a warning. Neither that apply nor one answering the
// same nulls without a diagnostic is recorded, so the next refresh reads
// the job and fills them in, as the framework does.
func TestUnchangedReads_applyWithoutReadBack(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	partial := withValueAt(t, p.state, tftypes.NewValue(tftypes.Number, nil), "job_version")
	p.wantDisagreement(t, partial, p.recordedAsBefore(t, partial, p.private, 42))

	warning := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: "Could not read the job back"}
	for name, diags := range map[string][]*tfprotov6.Diagnostic{"warning": {warning}, "no diagnostic": nil} {
		t.Run(name, func(t *testing.T) {
			requests := p.cluster.requestCount()
			private := p.applied(t, partial, p.private, diags...)
			if seen, ok := privateReadSeen(private); ok {
				t.Fatalf("the apply recorded %+v", seen)
			}
			if diags != nil && p.cluster.requestCount() != requests {
				t.Error("an apply that warned was read again")
			}
			before := p.srv.reads.taken.Load()
			resp := p.read(t, partial, private)
			if p.srv.reads.taken.Load() != before {
				t.Error("the refresh took the shortcut")
			}
			if got := valueAt(t, p.value(t, resp.NewState), "job_version"); !got.Equal(tfNum(0)) {
				t.Errorf("the refresh answered job_version %v, want Nomad's 0", got)
			}
		})
	}
}

// Issue 33, 6(c): a secrets Variable deleted by hand reads as an unset
// version; restored by hand, the job still at its index, the next refresh
// must read the version again. The read marks the instance, so it is never
// recorded whatever its state says.
func TestUnchangedReads_secretsVariableRestored(t *testing.T) {
	version := 1
	p := newReadProbe(t, newServer("test", true), &version)
	if got := valueAt(t, p.state, "services", "app", "secret_env_wo_version"); !got.IsNull() {
		t.Fatalf("with the Variable gone the version reads %v, want null", got)
	}
	if _, ok := privateReadSeen(p.private); ok || !privateHasKey(p.private, instancefamily.SecretEnvReadKey) {
		t.Fatalf("private state after the read: %s, want the secrets mark and no record", p.private)
	}
	path := instance.SecretEnvPath("bench-1", p.spec.TaskGroup(), "app")
	p.cluster.setVariable(path, true)
	unmarked, err := withoutPrivateKey(p.private, instancefamily.SecretEnvReadKey)
	if err != nil {
		t.Fatal(err)
	}
	p.wantDisagreement(t, p.state, p.recordedAsBefore(t, p.state, unmarked, 42))

	before := p.srv.reads.taken.Load()
	resp := p.read(t, p.state, p.private)
	if p.srv.reads.taken.Load() != before {
		t.Error("the refresh took the shortcut")
	}
	if got := valueAt(t, p.value(t, resp.NewState), "services", "app", "secret_env_wo_version"); !got.Equal(tfNum(1)) {
		t.Errorf("with the Variable back the version reads %v, want 1", got)
	}
	// An apply's state with the mark is not read again either.
	requests := p.cluster.requestCount()
	if _, ok := privateReadSeen(p.applied(t, p.state, p.private)); ok || p.cluster.requestCount() != requests {
		t.Error("an apply of an instance with secrets was recorded or read again")
	}
}

func withoutPrivateKey(raw []byte, key string) ([]byte, error) {
	var m map[string][]byte
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, key)
	return json.Marshal(m)
}
