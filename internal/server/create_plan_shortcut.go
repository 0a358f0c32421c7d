package server

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A new berth_instance plans without the framework's generic plan pass.
//
// Terraform plans each created resource twice (the plan walk, then the
// apply walk), and at fleet size most of the plugin's CPU in an apply is
// terraform-plugin-framework planning them: it applies defaults, nulls
// write-only values and marks computed attributes unknown, each by a
// transform that looks every value's attribute up in the schema by path,
// then rebuilds the whole planned value once per top-level attribute to run
// plan modifiers (README, Performance). For a new instance that work has a
// fixed outcome the schema decides, which createPlans computes in one walk
// over the proposed value and the configuration (plannedNew):
//   - an attribute config leaves null gets its schema default;
//   - a write-only value is null;
//   - a computed attribute config leaves null and without a default is
//     unknown (inside a default object too, as the framework does);
//   - plan modifiers change nothing: berth_instance uses UseStateForUnknown
//     and RequiresReplace(If...), which return at once when there is no
//     prior state (TestUnchangedPlans_everyPlanModifierAccountedFor fails
//     for any other kind);
//   - berth's own ModifyPlan runs as the framework would run it.
//
// Anything it cannot answer exactly goes to the framework: a set of nested
// objects the plan fills (its elements cannot be matched to config), a
// diagnostic or a deferral from ModifyPlan (the framework reports them),
// an unconfigured provider. Every acceptance test runs with verify on: the
// framework plans as well, and any difference fails the test.
type createPlans struct {
	typeName   string
	schema     schema.Schema
	stateType  tftypes.Type
	tree       map[string]*schemaTree
	noIdentity *tfprotov6.ResourceIdentityData
	data       *atomic.Pointer[shared.ProviderData] // the configured provider's (nil until Configure)
	shortcuts  *shortcutSwitch                      // BERTH_SHORTCUTS (nil: on)
	verify     bool
	taken      atomic.Int64 // plans answered here, for tests
}

func newCreatePlans(data *atomic.Pointer[shared.ProviderData], verify bool) (*createPlans, error) {
	d, err := instanceDefaults()
	if err != nil {
		return nil, fmt.Errorf("reading berth_instance's schema: %w", err)
	}
	return &createPlans{typeName: d.typeName, schema: instance.Schema(context.Background()), stateType: d.stateType,
		tree: d.tree, noIdentity: d.noIdentity, data: data, verify: verify}, nil
}

// answer returns the plan of a new instance, or nil when req is not one or
// the framework must plan it.
func (c *createPlans) answer(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	data := c.data.Load()
	if c.shortcuts.stepsAside(ctx) || data == nil || req.Config == nil || req.ProposedNewState == nil || len(req.PriorPrivate) > 0 {
		return nil
	}
	if req.PriorState != nil && len(req.PriorState.MsgPack) > 0 {
		prior, err := req.PriorState.Unmarshal(c.stateType)
		if err != nil || !prior.IsNull() {
			return nil // an update or a replacement's second half: the framework plans it
		}
	}
	proposed, err := req.ProposedNewState.Unmarshal(c.stateType)
	if err != nil || proposed.IsNull() || !proposed.IsKnown() {
		return nil
	}
	config, err := req.Config.Unmarshal(c.stateType)
	if err != nil || config.IsNull() || !config.IsKnown() {
		return nil
	}
	planned, ok := plannedNew(c.tree, proposed, config)
	if !ok {
		return nil
	}

	null := tftypes.NewValue(c.stateType, nil)
	mreq := resource.ModifyPlanRequest{
		Config: tfsdk.Config{Raw: config, Schema: c.schema},
		Plan:   tfsdk.Plan{Raw: planned, Schema: c.schema},
		State:  tfsdk.State{Raw: null, Schema: c.schema},
	}
	if req.ClientCapabilities != nil {
		mreq.ClientCapabilities.DeferralAllowed = req.ClientCapabilities.DeferralAllowed
	}
	mresp := resource.ModifyPlanResponse{Plan: mreq.Plan}
	instance.ModifyPlan(ctx, data, mreq, &mresp)
	if len(mresp.Diagnostics) > 0 || mresp.Deferred != nil || len(mresp.RequiresReplace) > 0 || mresp.Private != nil {
		return nil // the framework plans it again and reports what ModifyPlan said, as it always has
	}
	out, err := tfprotov6.NewDynamicValue(c.stateType, mresp.Plan.Raw)
	if err != nil {
		return nil
	}
	identity := req.PriorIdentity
	if identity == nil {
		identity = c.noIdentity
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: &out, PlannedIdentity: identity}
}

// plannedNew is what the framework plans for proposed, a new resource's
// proposed state under config, before plan modifiers: defaults and
// write-only values first, then computed attributes marked unknown (two
// passes, as the framework makes them, so an attribute inside a default
// object is marked too). false when it cannot say.
func plannedNew(tree map[string]*schemaTree, proposed, config tftypes.Value) (tftypes.Value, bool) {
	withDefaults, ok := objectPlanned(tree, proposed, config, withDefault)
	if !ok {
		return tftypes.Value{}, false
	}
	return objectPlanned(tree, withDefaults, config, markedUnknown)
}

// attrPlan plans one attribute's value v (its nested values planned
// already) where config holds cv.
type attrPlan func(n *schemaTree, v, cv tftypes.Value) tftypes.Value

// withDefault gives an attribute config leaves null its default, and nulls
// a write-only value.
func withDefault(n *schemaTree, v, cv tftypes.Value) tftypes.Value {
	if cv.IsNull() && n.value != nil {
		v = *n.value
	}
	if n.writeOnly && !v.IsNull() {
		v = tftypes.NewValue(v.Type(), nil)
	}
	return v
}

// markedUnknown makes a computed attribute config leaves null and without
// a default unknown: the provider says what it holds at apply.
func markedUnknown(n *schemaTree, v, cv tftypes.Value) tftypes.Value {
	if cv.IsNull() && n.computed && n.value == nil {
		return tftypes.NewValue(v.Type(), tftypes.UnknownValue)
	}
	return v
}

// objectPlanned applies plan to each attribute of the object v, nested
// attributes first (the framework's transforms visit children before their
// parent). config is the object's configuration; null when the object is
// not configured (a default), so every attribute beneath reads as unset.
func objectPlanned(tree map[string]*schemaTree, v, config tftypes.Value, plan attrPlan) (tftypes.Value, bool) {
	if v.IsNull() || !v.IsKnown() {
		return v, true
	}
	var attrs, cattrs map[string]tftypes.Value
	if v.As(&attrs) != nil || !config.IsKnown() || (!config.IsNull() && config.As(&cattrs) != nil) {
		return v, false
	}
	out := make(map[string]tftypes.Value, len(attrs))
	for name, av := range attrs {
		n := tree[name]
		if n == nil {
			return v, false // the value and the schema disagree
		}
		cv := cattrs[name] // missing: the zero Value, which is null
		nested, ok := nestedPlanned(n, av, cv, plan)
		if !ok {
			return v, false
		}
		out[name] = plan(n, nested, cv)
	}
	return tftypes.NewValue(v.Type(), out), true
}

// nestedPlanned applies plan beneath the attribute n holding v.
func nestedPlanned(n *schemaTree, v, cv tftypes.Value, plan attrPlan) (tftypes.Value, bool) {
	if n.attrs == nil || v.IsNull() || !v.IsKnown() {
		return v, true
	}
	switch {
	case n.set:
		// Set elements are matched to config by value, which filling them
		// changes: the framework plans a set whose objects it fills.
		return v, !n.filledBeneath
	case n.elements:
		return elementsPlanned(n.attrs, v, cv, plan)
	default:
		return objectPlanned(n.attrs, v, cv, plan)
	}
}

// elementsPlanned applies plan to each object of the list or map v,
// matched to config's element at the same index or key.
func elementsPlanned(tree map[string]*schemaTree, v, config tftypes.Value, plan attrPlan) (tftypes.Value, bool) {
	if !config.IsKnown() {
		return v, false
	}
	if v.Type().Is(tftypes.List{}) {
		var elems, celems []tftypes.Value
		if v.As(&elems) != nil || (!config.IsNull() && config.As(&celems) != nil) {
			return v, false
		}
		out := make([]tftypes.Value, len(elems))
		for i, e := range elems {
			var ce tftypes.Value
			if i < len(celems) {
				ce = celems[i]
			} else if !config.IsNull() {
				return v, false // config shorter than the plan: the framework reads that otherwise
			}
			var ok bool
			if out[i], ok = objectPlanned(tree, e, ce, plan); !ok {
				return v, false
			}
		}
		return tftypes.NewValue(v.Type(), out), true
	}
	var elems, celems map[string]tftypes.Value
	if v.As(&elems) != nil || (!config.IsNull() && config.As(&celems) != nil) {
		return v, false
	}
	out := make(map[string]tftypes.Value, len(elems))
	for k, e := range elems {
		ce, found := celems[k]
		if !found && !config.IsNull() {
			return v, false
		}
		var ok bool
		if out[k], ok = objectPlanned(tree, e, ce, plan); !ok {
			return v, false
		}
	}
	return tftypes.NewValue(v.Type(), out), true
}
