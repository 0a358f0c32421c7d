package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// fakeNodeNomad stands in for Nomad behind the node settings workflow: one
// node, whose writes it records as steps.
type fakeNodeNomad struct {
	steps    []string
	fail     map[string]error
	node     *nomadclient.NodeSettings // nil: the node is gone
	dynamic  map[string]string
	stranded []nomadclient.StrandedAllocation
}

func (f *fakeNodeNomad) step(name string) error {
	f.steps = append(f.steps, name)
	return f.fail[strings.Fields(name)[0]]
}

func (f *fakeNodeNomad) GetNodeSettings(_ context.Context, id string) (*nomadclient.NodeSettings, error) {
	if err := f.step("get"); err != nil {
		return nil, err
	}
	if f.node == nil {
		return nil, &nomadclient.NodeNotFoundError{By: "id", Value: id}
	}
	n := *f.node
	return &n, nil
}

func (f *fakeNodeNomad) NodeDynamicMeta(context.Context, string) (map[string]string, error) {
	return maps.Clone(f.dynamic), f.step("read-meta")
}

func (f *fakeNodeNomad) ApplyNodeMeta(_ context.Context, _ string, changes map[string]*string) error {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		if v := changes[k]; v != nil {
			parts = append(parts, k+"="+*v)
		} else {
			parts = append(parts, k+" removed")
		}
	}
	return f.step("meta " + strings.Join(parts, ", "))
}

func (f *fakeNodeNomad) SetNodeEligibility(_ context.Context, _ string, eligible bool) error {
	return f.step(fmt.Sprintf("eligible %t", eligible))
}

func (f *fakeNodeNomad) StartDrain(_ context.Context, _ string, spec nomadclient.DrainSpec) ([]string, error) {
	return []string{"a1"}, f.step(fmt.Sprintf("drain %s", spec.Deadline))
}

func (f *fakeNodeNomad) StopDrain(_ context.Context, _ string, eligible bool) error {
	return f.step(fmt.Sprintf("stop-drain eligible=%t", eligible))
}

func (f *fakeNodeNomad) WaitDrained(context.Context, string, []string) ([]nomadclient.StrandedAllocation, error) {
	return f.stranded, f.step("wait-drained")
}

func TestNodeSettingsApply(t *testing.T) {
	yes, no := true, false
	old := "old"
	drain := &nomadclient.DrainSpec{Deadline: 60e9}
	ready := func() *nomadclient.NodeSettings { return &nomadclient.NodeSettings{ID: "n1", Eligible: true} }
	drained := &nomadclient.NodeSettings{ID: "n1", LastDrain: "complete"}
	cases := []struct {
		name      string
		node      *nomadclient.NodeSettings
		dynamic   map[string]string
		in        NodeSettingsWrite
		fail      string
		stranded  []nomadclient.StrandedAllocation
		wantSteps []string
		wantErr   any
		wantFound NodeFound
	}{
		{name: "create sets meta and records what each key had", node: ready(), dynamic: map[string]string{"role": "old"},
			in:        NodeSettingsWrite{Want: NodeSettingsSpec{Meta: map[string]string{"role": "web", "zone": "a"}}},
			wantSteps: []string{"get", "read-meta", "meta role=web, zone=a"},
			wantFound: NodeFound{Eligible: true, Meta: map[string]*string{"role": &old, "zone": nil}}},
		{name: "meta already as wanted writes nothing", node: ready(), dynamic: map[string]string{"role": "web"},
			in: NodeSettingsWrite{Want: NodeSettingsSpec{Meta: map[string]string{"role": "web"}},
				Had: &NodeSettingsSpec{Meta: map[string]string{"role": "web"}}, Found: &NodeFound{Eligible: true, Meta: map[string]*string{"role": nil}}},
			wantSteps: []string{"get", "read-meta"},
			wantFound: NodeFound{Eligible: true, Meta: map[string]*string{"role": nil}}},
		{name: "a key no longer owned gets its old value back", node: ready(), dynamic: map[string]string{"role": "web"},
			in: NodeSettingsWrite{Had: &NodeSettingsSpec{Meta: map[string]string{"role": "web"}},
				Found: &NodeFound{Eligible: true, Meta: map[string]*string{"role": &old}}},
			wantSteps: []string{"get", "read-meta", "meta role=old"},
			wantFound: NodeFound{Eligible: true, Meta: map[string]*string{}}},
		{name: "cordon", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Eligible: &no}},
			wantSteps: []string{"get", "eligible false"},
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "eligibility as wanted writes nothing", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Eligible: &yes}},
			wantSteps: []string{"get"},
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "drain waits", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain}},
			wantSteps: []string{"get", "drain 1m0s", "wait-drained"},
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "drain that strands an allocation", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain}},
			stranded:  []nomadclient.StrandedAllocation{{ID: "a1", Job: "pinned"}},
			wantSteps: []string{"get", "drain 1m0s", "wait-drained"}, wantErr: new(*DrainStrandedError),
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "already drained by berth: nothing", node: drained,
			in:        NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain}, Had: &NodeSettingsSpec{Drain: drain}, Found: &NodeFound{Eligible: true}},
			wantSteps: []string{"get"},
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "drain off: eligible again as found", node: drained,
			in:        NodeSettingsWrite{Had: &NodeSettingsSpec{Drain: drain}, Found: &NodeFound{Eligible: true}},
			wantSteps: []string{"get", "stop-drain eligible=true"},
			wantFound: NodeFound{Eligible: true, Meta: map[string]*string{}}},
		{name: "drain off: a node found ineligible stays so", node: drained,
			in:        NodeSettingsWrite{Had: &NodeSettingsSpec{Drain: drain}, Found: &NodeFound{Eligible: false}},
			wantSteps: []string{"get", "stop-drain eligible=false"},
			wantFound: NodeFound{Meta: map[string]*string{}}},
		{name: "drain not ended in time", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain}}, fail: "wait-drained",
			wantSteps: []string{"get", "drain 1m0s", "wait-drained"}, wantErr: new(*DrainUnfinishedError),
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "drain refused", node: ready(), in: NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain}}, fail: "drain",
			wantSteps: []string{"get", "drain 1m0s"}, wantErr: new(*NomadError),
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{}}},
		{name: "meta refused: no drain started", node: ready(), fail: "meta",
			in:        NodeSettingsWrite{Want: NodeSettingsSpec{Drain: drain, Meta: map[string]string{"role": "web"}}},
			wantSteps: []string{"get", "read-meta", "meta role=web"}, wantErr: new(*NomadError),
			wantFound: NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{"role": nil}}},
		{name: "node unreadable", node: ready(), fail: "get", in: NodeSettingsWrite{Want: NodeSettingsSpec{Eligible: &no}},
			wantSteps: []string{"get"}, wantErr: new(*NomadError)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeNodeNomad{node: c.node, dynamic: c.dynamic, stranded: c.stranded, fail: map[string]error{}}
			if c.fail != "" {
				f.fail[c.fail] = errNomad
			}
			c.in.NodeID = "n1"
			out, err := NodeSettings{Nomad: f}.Apply(context.Background(), c.in)
			if !slices.Equal(f.steps, c.wantSteps) {
				t.Errorf("steps\n got %q\nwant %q", f.steps, c.wantSteps)
			}
			checkErrType(t, err, c.wantErr)
			if c.wantErr == nil || c.fail != "get" {
				if !reflect.DeepEqual(out.Found, c.wantFound) {
					t.Errorf("found %+v, want %+v", out.Found, c.wantFound)
				}
			}
		})
	}
}

func TestNodeSettingsRestore(t *testing.T) {
	old := "old"
	drain := &nomadclient.DrainSpec{Deadline: 60e9}
	cases := []struct {
		name      string
		node      *nomadclient.NodeSettings
		had       NodeSettingsSpec
		found     NodeFound
		fail      string
		wantSteps []string
		wantErr   any
	}{
		{name: "drain ended and meta given back", node: &nomadclient.NodeSettings{ID: "n1"},
			had:       NodeSettingsSpec{Drain: drain, Meta: map[string]string{"role": "web", "zone": "a"}},
			found:     NodeFound{Eligible: true, ManagesEligibility: true, Meta: map[string]*string{"role": &old, "zone": nil}},
			wantSteps: []string{"get", "stop-drain eligible=true", "meta role=old, zone removed"}},
		{name: "cordoned by berth: eligible again", node: &nomadclient.NodeSettings{ID: "n1"},
			found: NodeFound{Eligible: true, ManagesEligibility: true}, wantSteps: []string{"get", "eligible true"}},
		{name: "eligibility berth never managed is left alone", node: &nomadclient.NodeSettings{ID: "n1"},
			found: NodeFound{Eligible: true}, wantSteps: []string{"get"}},
		{name: "node gone: nothing to put back", found: NodeFound{Eligible: true, ManagesEligibility: true},
			had: NodeSettingsSpec{Meta: map[string]string{"role": "web"}}, wantSteps: []string{"get"}},
		{name: "meta refused", node: &nomadclient.NodeSettings{ID: "n1", Eligible: true}, fail: "meta",
			had: NodeSettingsSpec{Meta: map[string]string{"role": "web"}}, found: NodeFound{Eligible: true},
			wantSteps: []string{"get", "meta role removed"}, wantErr: new(*NomadError)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeNodeNomad{node: c.node, fail: map[string]error{}}
			if c.fail != "" {
				f.fail[c.fail] = errNomad
			}
			_, err := NodeSettings{Nomad: f}.Restore(context.Background(), "n1", c.had, c.found)
			if !slices.Equal(f.steps, c.wantSteps) {
				t.Errorf("steps\n got %q\nwant %q", f.steps, c.wantSteps)
			}
			checkErrType(t, err, c.wantErr)
		})
	}
}

// checkErrType checks err against want: nil, or a pointer to a variable
// of the error type expected (errors.As).
func checkErrType(t *testing.T, err error, want any) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("unexpected error %v", err)
	case want != nil && !errors.As(err, want):
		t.Errorf("error %v (%T), want %T", err, err, want)
	}
}
