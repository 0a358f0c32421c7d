package server

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	berth "github.com/berthhq/terraform-provider-berth/internal/provider"
	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
)

// Unchanged berth_instance and berth_job resources plan without the
// framework's plan pass.
//
// At fleet size a refresh plan is mostly terraform-plugin-framework planning
// resources nobody changed: for each one it decodes three values, applies
// defaults and then rebuilds the whole planned value once per top-level
// attribute to run plan modifiers, and answers with what Terraform
// proposed (about half of the plugin's CPU in a refresh plan of instances,
// a third in one of jobs; README, Performance). When Terraform proposes
// exactly the prior state, the framework's answer is that state unless one
// of these changes it:
//   - a schema default: a value the configuration leaves unset holds
//     something else (drift in a defaulted field). unchangedPlans checks
//     each default the schema declares, with the schema's own values;
//   - a plan modifier: both resources use UseStateForUnknown and
//     RequiresReplace(If...), which change nothing when plan equals state
//     (TestUnchangedPlans_everyPlanModifierAccountedFor fails for any other);
//   - ModifyPlan, which each resource's keeps hook speaks for:
//     berth_instance's checks look only at what changed (drivers, budget),
//     it fills the namespace only on create, and what planJobType takes out
//     of a batch or system job is already out of its state; it keeps
//     nothing of a job holding unmanaged settings (private state).
//     berth_job's plans the drift a refresh found away (and the job
//     registered again), and otherwise keeps the state (job.PlanKeepsUnchanged).
//
// Every acceptance test runs with verify on: the framework plans as well,
// and any difference fails the test. Only these two take this path: they
// are the resources kept by the hundred, and other resources plan on the
// clock (lease renewal) or on the cluster (node reservations).
type unchangedPlans struct {
	byType    map[string]*plannedType
	shortcuts *shortcutSwitch // BERTH_SHORTCUTS (nil: on)
	verify    bool
	taken     atomic.Int64 // plans answered here, for tests
}

// plannedType is what the plan shortcuts read off a resource's schema.
type plannedType struct {
	typeName   string // as Metadata names it
	stateType  tftypes.Type
	tree       map[string]*schemaTree
	noIdentity *tfprotov6.ResourceIdentityData // what the framework plans when Terraform (< 1.12) sends none
	// keeps reports whether the resource's ModifyPlan plans an unchanged
	// prior state (with its private state) as that state.
	keeps func(prior tftypes.Value, private []byte) bool
}

// typeNameOf is a resource's type name, from the provider's and the
// resource's Metadata, so a rename cannot leave a shortcut answering for a
// type that no longer exists.
func typeNameOf(r resource.Resource) string {
	ctx := context.Background()
	var p provider.MetadataResponse
	berth.New("")().Metadata(ctx, provider.MetadataRequest{}, &p)
	var m resource.MetadataResponse
	r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: p.TypeName}, &m)
	return m.TypeName
}

// instanceTypeName is the resource type name of berth_instance.
func instanceTypeName() string { return typeNameOf(instance.NewInstanceResource()) }

// plannedTypeOf reads r's schema and identity schema.
func plannedTypeOf(r resource.Resource, keeps func(tftypes.Value, []byte) bool) (*plannedType, error) {
	ctx := context.Background()
	withIdentity, ok := r.(resource.ResourceWithIdentity)
	if !ok {
		return nil, fmt.Errorf("%s has no identity schema", typeNameOf(r))
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	var is resource.IdentitySchemaResponse
	withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &is)
	if s.Diagnostics.HasError() || is.Diagnostics.HasError() {
		return nil, fmt.Errorf("schema: %v %v", s.Diagnostics, is.Diagnostics)
	}
	tree, err := schemaTreeOf(ctx, s.Schema.Attributes)
	if err != nil {
		return nil, err
	}
	it := is.IdentitySchema.Type().TerraformType(ctx)
	null, err := tfprotov6.NewDynamicValue(it, tftypes.NewValue(it, nil))
	return &plannedType{typeName: typeNameOf(r), stateType: s.Schema.Type().TerraformType(ctx), tree: tree,
		noIdentity: &tfprotov6.ResourceIdentityData{IdentityData: &null}, keeps: keeps}, err
}

// instanceDefaults and jobDefaults are read once.
var (
	instanceDefaults = sync.OnceValues(func() (*plannedType, error) {
		return plannedTypeOf(instance.NewInstanceResource(),
			func(_ tftypes.Value, private []byte) bool { return !instance.PrivateHasUnmanaged(private) })
	})
	jobDefaults = sync.OnceValues(func() (*plannedType, error) {
		return plannedTypeOf(job.NewJobResource(),
			func(prior tftypes.Value, _ []byte) bool { return job.PlanKeepsUnchanged(prior) })
	})
)

func newUnchangedPlans(verify bool) (*unchangedPlans, error) {
	u := &unchangedPlans{byType: map[string]*plannedType{}, verify: verify}
	for name, read := range map[string]func() (*plannedType, error){"berth_instance": instanceDefaults, "berth_job": jobDefaults} {
		t, err := read()
		if err != nil {
			return nil, fmt.Errorf("reading %s's schema: %w", name, err)
		}
		u.byType[t.typeName] = t
	}
	return u, nil
}

// answer returns the plan of an unchanged resource of type t, or nil when
// req is not one (then the framework plans it).
func (u *unchangedPlans) answer(ctx context.Context, t *plannedType, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	if u.shortcuts.stepsAside(ctx) || req.PriorState == nil || req.ProposedNewState == nil || req.Config == nil ||
		len(req.PriorState.MsgPack) == 0 || !bytes.Equal(req.PriorState.MsgPack, req.ProposedNewState.MsgPack) {
		return nil
	}
	prior, err := req.PriorState.Unmarshal(t.stateType)
	if err != nil || prior.IsNull() || !t.keeps(prior, req.PriorPrivate) {
		return nil
	}
	config, err := req.Config.Unmarshal(t.stateType)
	if err != nil || !defaultsHold(t.tree, prior, config) {
		return nil
	}
	identity := req.PriorIdentity
	if identity == nil {
		identity = t.noIdentity
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    req.ProposedNewState,
		PlannedPrivate:  req.PriorPrivate,
		PlannedIdentity: identity,
	}
}

// defaultsHold reports whether, beneath the object prior, every attribute
// that config leaves null and that has a default holds that default, as
// the framework would set it.
func defaultsHold(tree map[string]*schemaTree, prior, config tftypes.Value) bool {
	if prior.IsNull() {
		return true // nothing beneath a null object
	}
	if !config.IsKnown() {
		return false
	}
	var p, c map[string]tftypes.Value
	if prior.As(&p) != nil || (!config.IsNull() && config.As(&c) != nil) {
		return false
	}
	for name, n := range tree {
		if !n.hasDefaults() {
			continue
		}
		pv, cv := p[name], c[name] // a missing config value is the zero Value: null
		if !cv.IsKnown() {
			return false
		}
		if n.value != nil && cv.IsNull() && !pv.Equal(*n.value) {
			return false
		}
		if !n.defaultsBeneath || pv.IsNull() {
			continue
		}
		switch {
		case n.set:
			var elems []tftypes.Value
			if pv.As(&elems) != nil || len(elems) > 0 {
				return false
			}
		case n.elements:
			if !elementDefaultsHold(n.attrs, pv, cv) {
				return false
			}
		default:
			if !defaultsHold(n.attrs, pv, cv) {
				return false
			}
		}
	}
	return true
}

// elementDefaultsHold applies defaultsHold to each element of the list or
// map prior, matched to config's element at the same index or key.
func elementDefaultsHold(tree map[string]*schemaTree, prior, config tftypes.Value) bool {
	if prior.Type().Is(tftypes.List{}) {
		var p, c []tftypes.Value
		if prior.As(&p) != nil || (!config.IsNull() && config.As(&c) != nil) {
			return false
		}
		for i, pe := range p {
			var ce tftypes.Value
			if i < len(c) {
				ce = c[i]
			}
			if !defaultsHold(tree, pe, ce) {
				return false
			}
		}
		return true
	}
	var p, c map[string]tftypes.Value
	if prior.As(&p) != nil || (!config.IsNull() && config.As(&c) != nil) {
		return false
	}
	for k, pe := range p {
		if !defaultsHold(tree, pe, c[k]) {
			return false
		}
	}
	return true
}

// planDifferences describes how the framework's plan differs from a
// shortcut's answer (plans of values of type t); empty when they agree.
func planDifferences(t tftypes.Type, framework, shortcut *tfprotov6.PlanResourceChangeResponse) []string {
	var out []string
	for _, d := range framework.Diagnostics {
		out = append(out, fmt.Sprintf("framework diagnostic %q: %s", d.Summary, d.Detail))
	}
	if len(framework.RequiresReplace) > 0 {
		out = append(out, fmt.Sprintf("framework requires replacement at %v", framework.RequiresReplace))
	}
	if framework.PlannedState == nil {
		return append(out, "framework planned no state")
	}
	out = append(out, valueDifferences(t, framework.PlannedState, shortcut.PlannedState)...)
	if !bytes.Equal(framework.PlannedPrivate, shortcut.PlannedPrivate) {
		out = append(out, "private state differs")
	}
	if identityBytes(framework.PlannedIdentity) != identityBytes(shortcut.PlannedIdentity) {
		out = append(out, "identity differs")
	}
	return out
}

// valueDifferences lists where the shortcut's value (of type t) differs
// from the framework's.
func valueDifferences(t tftypes.Type, framework, shortcut *tfprotov6.DynamicValue) []string {
	fv, err1 := framework.Unmarshal(t)
	sv, err2 := shortcut.Unmarshal(t)
	if err1 != nil || err2 != nil {
		return []string{fmt.Sprintf("decoding the values: %v %v", err1, err2)}
	}
	diffs, err := sv.Diff(fv)
	var out []string
	if err != nil {
		out = append(out, fmt.Sprintf("comparing the values: %v", err))
	}
	for _, d := range diffs {
		out = append(out, fmt.Sprintf("%s: shortcut %v, framework %v", d.Path, d.Value1, d.Value2))
	}
	return out
}

func identityBytes(d *tfprotov6.ResourceIdentityData) string {
	if d == nil || d.IdentityData == nil {
		return ""
	}
	return string(d.IdentityData.MsgPack) + string(d.IdentityData.JSON)
}

// verifiedPlan is a plan shortcut's answer in verify mode: the framework
// planned too, and a difference is an error diagnostic naming it (a berth
// bug in the shortcut called name).
func verifiedPlan(name string, t tftypes.Type, framework, shortcut *tfprotov6.PlanResourceChangeResponse) *tfprotov6.PlanResourceChangeResponse {
	diffs := planDifferences(t, framework, shortcut)
	if len(diffs) == 0 {
		return shortcut
	}
	framework.Diagnostics = append(framework.Diagnostics, shortcutBug("the "+name+" shortcut disagrees with the framework", diffs))
	return framework
}
