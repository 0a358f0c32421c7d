package node

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigValidators = &nodeSettingsResource{}
	_ resource.ResourceWithConfigure        = &nodeSettingsResource{}
	_ resource.ResourceWithImportState      = &nodeSettingsResource{}
	_ resource.ResourceWithValidateConfig   = &nodeSettingsResource{}
	_ resource.ResourceWithModifyPlan       = &nodeSettingsResource{}
)

// nodeSettingsIdentity identifies a berth_node_settings by its node's ID
// (one berth_node_settings per node).
var nodeSettingsIdentity = shared.SingleIdentity{Name: "id", Doc: "The node's ID."}

// NewNodeSettingsResource builds the berth_node_settings resource.
func NewNodeSettingsResource() resource.Resource {
	return &nodeSettingsResource{shared.NewResourceBase("node_settings"), shared.WithIdentity{Identity: nodeSettingsIdentity}}
}

type nodeSettingsResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *nodeSettingsResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodeSettingsSchema(ctx)
}

func (r *nodeSettingsResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(path.MatchRoot("node_id"), path.MatchRoot("node_name"))}
}

// ValidateConfig refuses a drained node that is also to be eligible.
func (r *nodeSettingsResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeSettingsModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if m.Drain != nil && m.Eligible.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("eligible"), "eligible = true with drain",
			"A draining or drained node is ineligible for scheduling. Remove drain to make the node eligible again, or "+
				"remove eligible.")
	}
	if m.Drain != nil && !m.Drain.Deadline.IsNull() && !m.Drain.Deadline.IsUnknown() {
		if d, diags := m.Drain.Deadline.ValueGoDuration(); !diags.HasError() && d < 0 {
			resp.Diagnostics.AddAttributeError(path.Root("drain").AtName("deadline"), "Negative drain deadline",
				fmt.Sprintf("deadline is %s; give a positive duration, 0s for none, or force = true to stop everything at once.", d))
		}
	}
}

// ModifyPlan finds the node the configuration names (another node than
// state's replaces the resource) and plans eligibility unknown where the
// apply changes it without it being configured (a drain starts or ends).
func (r *nodeSettingsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	var plan, state nodeSettingsModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	if !creating {
		if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
			return
		}
	}
	var cfgID, cfgName types.String
	var cfgEligible types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_id"), &cfgID)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_name"), &cfgName)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("eligible"), &cfgEligible)...)
	if resp.Diagnostics.HasError() || cfgID.IsUnknown() || cfgName.IsUnknown() {
		return
	}
	sameNode := !creating && (cfgID.IsNull() || cfgID.Equal(state.NodeID)) && (cfgName.IsNull() || cfgName.Equal(state.NodeName))
	if !sameNode {
		n, err := r.Data.Nomad.FindNode(ctx, cfgID.ValueString(), cfgName.ValueString(), r.Data.LedgerNamespace)
		if err != nil {
			addNodeLookupError(&resp.Diagnostics, cfgID, err)
			return
		}
		plan.ID, plan.NodeID, plan.NodeName = types.StringValue(n.ID), types.StringValue(n.ID), types.StringValue(n.Name)
		plan.NodePool = types.StringValue(n.NodePool)
		if !creating && n.ID != state.ID.ValueString() {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("node_id"))
		}
	}
	if cfgEligible.IsNull() && (creating || (plan.Drain == nil) != (state.Drain == nil)) {
		plan.Eligible = types.BoolUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// addNodeLookupError reports a node the configuration names that Nomad
// does not have (or has twice), at the attribute that named it.
func addNodeLookupError(diags *diag.Diagnostics, cfgID types.String, err error) {
	at := path.Root("node_name")
	if !cfgID.IsNull() {
		at = path.Root("node_id")
	}
	var notFound *nomadclient.NodeNotFoundError
	var ambiguous *nomadclient.AmbiguousNodeError
	switch {
	case errors.As(err, &notFound), errors.As(err, &ambiguous):
		diags.AddAttributeError(at, "Node not found", err.Error()+". Check `nomad node status`.")
	default:
		var d diag.Diagnostics
		shared.AddNomadError(&d, "Could not look the node up", err)
		diags.AddAttributeError(at, d[0].Summary(), d[0].Detail())
	}
}

func (r *nodeSettingsResource) settings() workflow.NodeSettings {
	return workflow.NodeSettings{Nomad: r.Data.Nomad}
}

func (r *nodeSettingsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodeSettingsModel
	var cfgEligible types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("eligible"), &cfgEligible)...)
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, 70*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in := workflow.NodeSettingsWrite{NodeID: plan.ID.ValueString(), Want: plan.spec(ctx, cfgEligible, &resp.Diagnostics)}
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := r.settings().Apply(ctx, in)
	r.finish(ctx, &plan, out, err, resp.Private, &resp.State, &resp.Diagnostics)
}

func (r *nodeSettingsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state nodeSettingsModel
	var cfgEligible types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("eligible"), &cfgEligible)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, 70*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	had := state.spec(ctx, types.BoolNull(), &resp.Diagnostics) // eligibility managed: Found says
	in := workflow.NodeSettingsWrite{NodeID: state.ID.ValueString(), Want: plan.spec(ctx, cfgEligible, &resp.Diagnostics),
		Had: &had, Found: readFound(ctx, req.Private, &resp.Diagnostics)}
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := r.settings().Apply(ctx, in)
	r.finish(ctx, &plan, out, err, resp.Private, &resp.State, &resp.Diagnostics)
}

// finish records how berth found the node and the node as it now is, then
// reports a failed step; what was applied before it stays in state.
func (r *nodeSettingsResource) finish(ctx context.Context, m *nodeSettingsModel, out workflow.NodeSettingsOutcome, err error,
	private shared.PrivateData, st interface {
		Set(context.Context, any) diag.Diagnostics
	}, diags *diag.Diagnostics) {
	writeFound(ctx, private, out.Found, diags)
	tflog.Info(ctx, "Node settings applied", map[string]any{"node": m.ID.ValueString(), "steps": strings.Join(out.Steps, ", ")})
	read := shared.CleanupContext(ctx)
	if n, rerr := r.Data.Nomad.GetNodeSettings(read, m.ID.ValueString()); rerr == nil {
		drain := m.Drain
		m.record(ctx, n, m.metaAsMap(ctx, diags), diags)
		m.Drain = drain // as planned: the apply just made it so
	}
	diags.Append(st.Set(ctx, m)...)
	var stranded *workflow.DrainStrandedError
	var unfinished *workflow.DrainUnfinishedError
	switch {
	case errors.As(err, &stranded):
		lines := make([]string, len(stranded.Stranded))
		for i, a := range stranded.Stranded {
			lines[i] = a.String()
		}
		diags.AddAttributeError(path.Root("drain"), "Drain stopped allocations that could not move",
			fmt.Sprintf("Node %s is drained, but its deadline passed before Nomad could place these elsewhere, so it "+
				"stopped them and their jobs run short of them:\n  - %s\nGive them room on another node (capacity, or "+
				"nodes their constraints and node pool allow); Nomad places them when it can (`nomad job status <job>` "+
				"shows them blocked). A longer deadline gives migrations more time.", m.ID.ValueString(), strings.Join(lines, "\n  - ")))
	case errors.As(err, &unfinished):
		diags.AddAttributeError(path.Root("drain"), "Drain did not end in time",
			fmt.Sprintf("berth stopped waiting for node %s's drain: %v.\nThe drain goes on in Nomad, and the next apply "+
				"waits for it again. Give `timeouts` more time than the drain's `deadline`, or set a shorter deadline "+
				"(Nomad stops what is left on the node when it passes).", m.ID.ValueString(), unfinished.Err))
	case err != nil:
		shared.AddWorkflowError(diags, shared.ErrorContext{Object: "node"}, err)
	}
}

// metaAsMap is the planned meta as a Go map: just applied, it is what
// the node has.
func (m *nodeSettingsModel) metaAsMap(ctx context.Context, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	if !m.Meta.IsNull() && !m.Meta.IsUnknown() {
		diags.Append(m.Meta.ElementsAs(ctx, &out, false)...)
	}
	return out
}

func (r *nodeSettingsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeSettingsModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	n, err := r.Data.Nomad.GetNodeSettings(ctx, state.ID.ValueString())
	var notFound *nomadclient.NodeNotFoundError
	switch {
	case errors.As(err, &notFound):
		tflog.Info(ctx, "Node is gone from Nomad; removing its settings from state", map[string]any{"node": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		shared.AddNomadError(&resp.Diagnostics, "Could not read the node", err)
		return
	}
	var dynamic map[string]string
	if !state.Meta.IsNull() && len(state.Meta.Elements()) > 0 {
		if dynamic, err = r.Data.Nomad.NodeDynamicMeta(ctx, n.ID); err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not read the node's metadata", err)
			return
		}
	}
	state.record(ctx, n, dynamic, &resp.Diagnostics)
	if readFound(ctx, req.Private, &resp.Diagnostics) == nil {
		// Imported: how berth found the node is how it is now.
		writeFound(ctx, resp.Private, workflow.NodeFound{Eligible: n.Eligible || n.Drain != nil}, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *nodeSettingsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeSettingsModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	had := state.spec(ctx, types.BoolNull(), &resp.Diagnostics)
	found := readFound(ctx, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if found == nil {
		found = &workflow.NodeFound{Eligible: true}
	}
	if _, err := r.settings().Restore(ctx, state.ID.ValueString(), had, *found); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, shared.ErrorContext{Object: "node"}, err)
	}
}

// ImportState takes a node's full ID or its name. berth then owns no
// metadata key and no drain; how it finds the node is what destroy puts
// back.
func (r *nodeSettingsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	given := nodeSettingsIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id, name := given, ""
	if names.CheckNodeID(given) != nil {
		id, name = "", given
	}
	n, err := r.Data.Nomad.FindNode(ctx, id, name, r.Data.LedgerNamespace)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import node settings", err.Error()+". Give the node's full ID or its unique name.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), n.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_id"), n.ID)...)
}
