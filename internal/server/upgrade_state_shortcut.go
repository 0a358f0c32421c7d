package server

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform asks for every resource's state to be upgraded before each
// refresh and each apply, even when it is already at its schema's
// version. The framework then decodes the JSON state into the schema's
// type and encodes it as msgpack, between the two walking the whole value
// once more, per node looking its path up in the schema, to turn null
// list and set blocks into empty ones (ReifyNullCollectionBlocks). berth's
// resources have no blocks (only attributes), so that walk changes
// nothing: for a berth_instance it was most of the upgrade's CPU, and the
// upgrade a quarter of the plugin's on a refresh or a destroy.
// upgradeStates does the decoding and encoding alone, for a state at its
// schema's version, of a resource without blocks; the framework answers
// everything else (another version, a flatmap state, an error).

// upgradeStates answers UpgradeResourceState for a state at its schema's
// version.
type upgradeStates struct {
	resources func() []func() resource.Resource
	mu        sync.Mutex
	byType    map[string]*upgradeType // nil: the framework upgrades this type
	shortcuts *shortcutSwitch
	verify    bool
	taken     atomic.Int64
}

// upgradeType is what the shortcut needs of a resource's schema.
type upgradeType struct {
	version   int64
	stateType tftypes.Type
}

func newUpgradeStates(p provider.Provider, verify bool) *upgradeStates {
	return &upgradeStates{resources: func() []func() resource.Resource { return p.Resources(context.Background()) },
		byType: map[string]*upgradeType{}, verify: verify}
}

// typeOf is what the shortcut knows of resource type name, read off its
// schema the first time it is asked; nil when the framework must upgrade
// it (no such resource, or a schema with blocks).
func (u *upgradeStates) typeOf(name string) *upgradeType {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t, ok := u.byType[name]; ok {
		return t
	}
	ctx := context.Background()
	var found *upgradeType
	for _, build := range u.resources() {
		r := build()
		if typeNameOf(r) != name {
			continue
		}
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		if !s.Diagnostics.HasError() && len(s.Schema.Blocks) == 0 {
			found = &upgradeType{version: s.Schema.Version, stateType: s.Schema.Type().TerraformType(ctx)}
		}
		break
	}
	u.byType[name] = found
	return found
}

// answer returns the upgraded state, or nil when the framework must
// upgrade it.
func (u *upgradeStates) answer(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	if u.shortcuts.stepsAside(ctx) || req.RawState == nil || req.RawState.JSON == nil {
		return nil
	}
	t := u.typeOf(req.TypeName)
	if t == nil || req.Version != t.version {
		return nil
	}
	// As the framework reads it: attributes the schema no longer has are
	// dropped.
	v, err := req.RawState.UnmarshalWithOpts(t.stateType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil
	}
	state, err := tfprotov6.NewDynamicValue(t.stateType, v)
	if err != nil {
		return nil
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &state}
}

// verifiedUpgrade is the shortcut's answer when it is the framework's,
// else the framework's with an error naming the differences (verify mode).
func verifiedUpgrade(t tftypes.Type, framework, shortcut *tfprotov6.UpgradeResourceStateResponse) *tfprotov6.UpgradeResourceStateResponse {
	var diffs []string
	for _, d := range framework.Diagnostics {
		diffs = append(diffs, "framework diagnostic "+d.Summary+": "+d.Detail)
	}
	if framework.UpgradedState == nil {
		diffs = append(diffs, "framework upgraded no state")
	} else {
		diffs = append(diffs, valueDifferences(t, framework.UpgradedState, shortcut.UpgradedState)...)
	}
	if len(diffs) == 0 {
		return shortcut
	}
	framework.Diagnostics = append(framework.Diagnostics, shortcutBug("the upgrade-state shortcut disagrees with the framework", diffs))
	return framework
}
