package server

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

func TestWithReadSeen_keepsOtherKeys(t *testing.T) {
	raw, _ := json.Marshal(map[string][]byte{instance.UnmanagedKey: []byte(`["x"]`)})
	seen := &readSeen{Namespace: "default", Name: "web", Index: 42, State: "abc"}
	out, err := withReadSeen(raw, seen)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := privateReadSeen(out)
	if !ok || got != *seen {
		t.Fatalf("read back %+v %v, want %+v", got, ok, *seen)
	}
	if !instance.PrivateHasUnmanaged(out) {
		t.Errorf("the other key was lost: %s", out)
	}
	out, err = withReadSeen(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := privateReadSeen(out); ok || !instance.PrivateHasUnmanaged(out) {
		t.Errorf("after removal: %s", out)
	}
	if out, _ := withReadSeen(nil, nil); out != nil {
		t.Errorf("nothing to record in nothing: %s", out)
	}
}

// Batch jobs and instances with secrets Variables never take the shortcut:
// what a full read answers for them moves without the job.
func TestReadSeenOf(t *testing.T) {
	u, err := newUnchangedReads(nil, "test", false)
	if err != nil {
		t.Fatal(err)
	}
	obj := u.stateType.(tftypes.Object)
	svcType := obj.AttributeTypes["services"].(tftypes.Map).ElementType.(tftypes.Object)
	state := func(typ string, secretVersion any) tftypes.Value {
		vals := map[string]tftypes.Value{}
		for k, at := range obj.AttributeTypes {
			vals[k] = tftypes.NewValue(at, nil)
		}
		svc := map[string]tftypes.Value{}
		for k, at := range svcType.AttributeTypes {
			svc[k] = tftypes.NewValue(at, nil)
		}
		svc["secret_env_wo_version"] = tftypes.NewValue(tftypes.Number, secretVersion)
		vals["namespace"] = tftypes.NewValue(tftypes.String, "default")
		vals["name"] = tftypes.NewValue(tftypes.String, "web")
		vals["job_modify_index"] = tftypes.NewValue(tftypes.Number, big.NewFloat(42))
		if typ != "" {
			vals["type"] = tftypes.NewValue(tftypes.String, typ)
		}
		vals["services"] = tftypes.NewValue(obj.AttributeTypes["services"], map[string]tftypes.Value{"app": tftypes.NewValue(svcType, svc)})
		return tftypes.NewValue(obj, vals)
	}
	if got := readSeenOf(state("", nil), []byte("raw")); got == nil || got.Index != 42 || got.Name != "web" || got.State != stateHash([]byte("raw")) {
		t.Errorf("service: %+v", got)
	}
	if got := readSeenOf(state("batch", nil), nil); got != nil {
		t.Errorf("batch: %+v, want nil", got)
	}
	if got := readSeenOf(state("", big.NewFloat(1)), nil); got != nil {
		t.Errorf("secrets: %+v, want nil", got)
	}
}

// The verify mode fails a shortcut answer that differs from the framework's
// read: in state, private state or identity.
func TestUnchangedReads_verifyCatchesADifference(t *testing.T) {
	u, err := newUnchangedReads(nil, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	obj := u.stateType.(tftypes.Object)
	state := func(index int64) *tfprotov6.DynamicValue {
		vals := map[string]tftypes.Value{}
		for k, at := range obj.AttributeTypes {
			vals[k] = tftypes.NewValue(at, nil)
		}
		vals["job_modify_index"] = tftypes.NewValue(tftypes.Number, big.NewFloat(float64(index)))
		dv, err := tfprotov6.NewDynamicValue(obj, tftypes.NewValue(obj, vals))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	same := &tfprotov6.ReadResourceResponse{NewState: state(42), Private: []byte(`{"a":"e30="}`)}
	if got := u.verifiedAnswer(&tfprotov6.ReadResourceResponse{NewState: state(42), Private: []byte(`{"a":"e30="}`)}, same); got != same {
		t.Fatalf("equal answers: %+v", got.Diagnostics)
	}
	for name, framework := range map[string]*tfprotov6.ReadResourceResponse{
		"state":   {NewState: state(43), Private: same.Private},
		"private": {NewState: state(42), Private: []byte(`{}`)},
	} {
		got := u.verifiedAnswer(framework, same)
		if len(got.Diagnostics) != 1 || got.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
			t.Errorf("%s differs: diagnostics %+v, want one error", name, got.Diagnostics)
		}
	}
}

func TestSetPlanRoot(t *testing.T) {
	obj := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String, "n": tftypes.Number}}
	plan := tfsdk.Plan{Raw: tftypes.NewValue(obj, map[string]tftypes.Value{
		"id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "n": tftypes.NewValue(tftypes.Number, big.NewFloat(1)),
	})}
	if d := shared.SetPlanRoot(&plan, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "default/web")}); d.HasError() {
		t.Fatal(d)
	}
	var attrs map[string]tftypes.Value
	if err := plan.Raw.As(&attrs); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := attrs["id"].As(&id); err != nil || id != "default/web" || !attrs["n"].IsKnown() {
		t.Errorf("plan after setPlanRoot: %v", plan.Raw)
	}
	if d := shared.SetPlanRoot(&plan, map[string]tftypes.Value{"n": tftypes.NewValue(tftypes.String, "x")}); !d.HasError() {
		t.Error("a value of the wrong type was set")
	}
}

// The read shortcut's cluster key holds the identity Nomad gave the
// cluster (its workload identity key IDs): a record made against one
// cluster is not answered from for another at the same address (a cluster
// rebuilt there, a port-forward moved), and a cluster whose identity
// cannot be read gets no records and no shortcut.
func TestUnchangedReads_clusterIdentity(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	if _, ok := privateReadSeen(p.private); !ok {
		t.Fatalf("the full read recorded nothing: %s", p.private)
	}
	probeAt := func() *readProbe {
		q := newPlanProbeAt(t, newServer("test", true), p.cluster.url)
		return &readProbe{planProbe: q, cluster: p.cluster, srv: q.srv.(*server), spec: p.spec}
	}
	setKids := func(kids ...string) {
		p.cluster.mu.Lock()
		defer p.cluster.mu.Unlock()
		p.cluster.kids = kids
	}

	same := probeAt() // another provider process, the same cluster
	same.read(t, p.state, p.private)
	if got := same.srv.reads.taken.Load(); got != 1 {
		t.Fatalf("the same cluster: shortcut taken %d times, want 1", got)
	}

	setKids("c2b8e5d1-7a94-4f3e-9b06-1d8f2a5c3e77") // rebuilt at the same address
	rebuilt := probeAt()
	resp := rebuilt.read(t, p.state, p.private)
	if got := rebuilt.srv.reads.taken.Load(); got != 0 {
		t.Errorf("a cluster rebuilt at the same address: shortcut taken %d times, want 0", got)
	}
	if seen, ok := privateReadSeen(resp.Private); !ok || seen.Cluster == "" {
		t.Errorf("the full read on the rebuilt cluster recorded %+v %v", seen, ok)
	}

	setKids() // no identity
	unknown := probeAt()
	resp = unknown.read(t, p.state, p.private)
	if got := unknown.srv.reads.taken.Load(); got != 0 {
		t.Errorf("a cluster without identity: shortcut taken %d times, want 0", got)
	}
	if seen, ok := privateReadSeen(resp.Private); ok {
		t.Errorf("a cluster without identity: the full read recorded %+v", seen)
	}
}
