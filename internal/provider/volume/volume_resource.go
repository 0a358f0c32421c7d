package volume

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/units"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigValidators = &volumeResource{}
	_ resource.ResourceWithConfigure        = &volumeResource{}
	_ resource.ResourceWithImportState      = &volumeResource{}
	_ resource.ResourceWithValidateConfig   = &volumeResource{}
	_ resource.ResourceWithModifyPlan       = &volumeResource{}
	_ resource.ResourceWithIdentity         = &volumeResource{}
)

// NewVolumeResource builds the berth_volume resource.
func NewVolumeResource() resource.Resource { return newVolumeResource() }

func newVolumeResource() *volumeResource {
	return &volumeResource{ResourceBase: shared.NewResourceBase("volume"), WithIdentity: shared.WithIdentity{Identity: volumeIdentity}}
}

type volumeResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *volumeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = volumeSchema(ctx)
}

func (r *volumeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m volumeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Sizes that do not parse are reported by their type, not again here.
	if validSize(m.CapacityMin) && validSize(m.CapacityMax) && m.CapacityMin.Bytes() > m.CapacityMax.Bytes() {
		resp.Diagnostics.AddAttributeError(path.Root("capacity_max"), "capacity_max below capacity_min",
			fmt.Sprintf("capacity_max (%s) must be at least capacity_min (%s).", m.CapacityMax.ValueString(), m.CapacityMin.ValueString()))
	}
	if m.Type.ValueString() == volume.TypeCSI {
		validateCSIConfig(m, &resp.Diagnostics)
		return
	}
	validateHostConfig(m, &resp.Diagnostics)
	// Nomad refuses a host volume whose capacity_max is below its
	// capacity_min, and an unset maximum counts as 0 there.
	if validSize(m.CapacityMin) && m.CapacityMax.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("capacity_max"), "capacity_min needs capacity_max",
			fmt.Sprintf("Nomad refuses a host volume with capacity_min (%s) and no capacity_max. Set capacity_max to at least %s.",
				m.CapacityMin.ValueString(), m.CapacityMin.ValueString()))
	}
	plugin := m.PluginID.ValueString()
	if (m.PluginID.IsNull() || plugin == volume.DefaultPlugin) && !m.Parameters.IsNull() && !m.Parameters.IsUnknown() {
		for key := range m.Parameters.Elements() {
			if !slices.Contains(volume.MkdirParameters(), key) {
				resp.Diagnostics.AddAttributeError(path.Root("parameters").AtMapKey(key), "Unknown mkdir parameter",
					fmt.Sprintf("The mkdir plugin accepts only %s; %q would be rejected by Nomad. Remove it, or use a plugin that understands it.",
						strings.Join(volume.MkdirParameters(), ", "), key))
			}
		}
	}
}

// ConfigValidators: work placed into a node reservation runs on the
// reservation's node, so node_id is refused beside node_reservation
// (reported at node_reservation, the first path).
func (r *volumeResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.Conflicting(path.MatchRoot("node_reservation"), path.MatchRoot("node_id")),
	}
}

// ModifyPlan shows the namespace of a new volume, and warns when
// capacity_max falls below what the volume already has or a new capacity
// does not fit in the volume's node reservation; apply refuses both
// before writing (plan_advice.go).
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	var plan volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		if shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.Data.Nomad.Namespace())...)
		}
		var found diag.Diagnostics
		r.checkBudget(ctx, plan, nil, &found)
		shared.WarnAtPlan(&resp.Diagnostics, found)
		return
	}
	var state volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if sameSettings(plan, state, volumeComputed) {
		// Nothing the user controls changes (sizes may be spelled
		// differently): keep the computed values too, so the plan is empty.
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &state)...)
		return
	}
	var found diag.Diagnostics
	if checkNoShrink(plan, state, &found); !found.HasError() {
		r.checkBudget(ctx, plan, &state, &found)
	}
	shared.WarnAtPlan(&resp.Diagnostics, found)
}

// checkNoShrink refuses a capacity_max below the capacity the volume
// already has (as last read): volumes cannot shrink in place.
func checkNoShrink(plan, state volumeModel, diags *diag.Diagnostics) {
	if plan.CapacityMax.IsUnknown() || plan.CapacityMax.IsNull() {
		return
	}
	if have := state.CapacityBytes.ValueInt64(); have > 0 && plan.CapacityMax.Bytes() < have {
		diags.AddAttributeError(path.Root("capacity_max"), "capacity_max below the current capacity",
			fmt.Sprintf("The volume already has %s; capacity_max %s would be smaller. Volumes cannot shrink in place: "+
				"keep capacity_max at least %s, or replace the volume (e.g. terraform apply -replace).",
				units.FormatBytes(have), plan.CapacityMax.ValueString(), units.FormatBytes(have)))
	}
}

// checkBudget checks at plan time that the volume's capacity fits in its
// node reservation, when the reservation or the capacity is new.
func (r *volumeResource) checkBudget(ctx context.Context, plan volumeModel, state *volumeModel, diags *diag.Diagnostics) {
	known := func(v sizeValue) bool { return v.IsNull() || validSize(v) }
	if !known(plan.CapacityMin) || !known(plan.CapacityMax) || plan.Name.IsUnknown() {
		return
	}
	if state != nil && state.NodeReservation.Equal(plan.NodeReservation) && volumeDiskMB(*state) == volumeDiskMB(plan) {
		return
	}
	ns := plan.Namespace.ValueString()
	if plan.Namespace.IsUnknown() || ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	shared.CheckReservationBudget(ctx, r.Data, plan.NodeReservation, nomadclient.VolumeConsumer(ns, plan.Name.ValueString()),
		capacity.Resources{DiskMB: volumeDiskMB(plan)}, volumeBudgetFix, diags)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if plan.Namespace.IsUnknown() || plan.Namespace.ValueString() == "" {
		plan.Namespace = types.StringValue(r.Data.Nomad.Namespace())
	}
	in, ok := r.writeInput(ctx, plan, nil, &resp.Diagnostics)
	if !ok {
		return
	}
	if in.Volume.IsCSI() {
		// Write-only: only the configuration has them.
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("secrets_wo"), &in.Volume.Secrets)...)
		if resp.Diagnostics.HasError() {
			return
		}
		// Nothing below may log or report them, the plugin's errors included.
		secrets := in.Volume.SecretValues()
		ctx = maskCSISecrets(ctx, secrets)
		defer func() { resp.Diagnostics = redactCSISecrets(resp.Diagnostics, secrets) }()
	}
	out, err := r.volumes().Create(ctx, in)
	ec := volumeErrors("Could not place the volume into its node reservation")
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
		if workflow.Uncertain(err) {
			// The volume may exist under an ID berth never learnt: keep it
			// (tainted, no ID) with its charge; Read finds it by name.
			shared.SetStateUnknownsNull(ctx, &resp.State, &plan, &resp.Diagnostics)
		}
		return
	}
	// From here on the volume exists: state always records it, so a volume
	// that never becomes ready is tainted rather than orphaned.
	vol := r.readBack(ctx, out.WaitErr, in.Volume.Namespace, out.Written.ID, out.Ready, out.Written, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if out.WaitErr != nil {
		check := fmt.Sprintf("Check the node's plugin with `nomad volume status -type host %s`", vol.ID)
		if in.Volume.IsCSI() {
			check = fmt.Sprintf("Check its plugin's controllers and nodes with `nomad plugin status %s`", in.Volume.PluginID)
		}
		resp.Diagnostics.AddError("Volume did not become ready",
			fmt.Sprintf("%s %s (%q) was created but is %s: %v. %s; "+
				"the volume is kept in state as tainted and will be replaced on the next apply.",
				capitalize(in.Volume.Kind()), vol.ID, vol.Name, vol.State, out.WaitErr, check))
	}
}

func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	v, err := r.lookup(ctx, state)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the volume", err)
		return
	}
	if v == nil {
		// Its charge on a node reservation stays: a refresh never writes.
		// The reservation's next resize or release drops it.
		tflog.Info(ctx, "Volume is gone from Nomad; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	r.record(ctx, v, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	in, ok := r.writeInput(ctx, plan, &state, &resp.Diagnostics)
	if checkNoShrink(plan, state, &resp.Diagnostics); !ok || resp.Diagnostics.HasError() {
		return
	}
	out, err := r.volumes().Update(ctx, in)
	ec := volumeErrors("The new capacity does not fit the volume's node reservation")
	ec.Updating = true
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
		return
	}
	r.readBack(ctx, out.WaitErr, in.Volume.Namespace, in.Volume.ID, out.Ready, out.Written, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if out.WaitErr != nil {
		shared.AddNomadError(&resp.Diagnostics, "The volume did not become ready after the update", out.WaitErr)
	}
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	out, err := r.volumes().Delete(ctx, workflow.VolumeDelete{Type: state.Type.ValueString(), Namespace: state.Namespace.ValueString(), ID: state.ID.ValueString(),
		Name: state.Name.ValueString(), Reservation: state.NodeReservation.ValueString(), Force: state.ForceDestroy.ValueBool()})
	ec := volumeErrors("")
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
	}
}

// lookup reads the volume state refers to: by ID, or by name when a create
// whose answer was lost left no ID (see setStateUnknownsNull).
func (r *volumeResource) lookup(ctx context.Context, state volumeModel) (*volume.Volume, error) {
	ns := state.Namespace.ValueString()
	if state.Type.ValueString() == volume.TypeCSI {
		id := state.ID.ValueString()
		if id == "" {
			id = state.Name.ValueString() // a CSI volume's ID is its name
		}
		return r.Data.Nomad.GetCSIVolume(ctx, ns, id)
	}
	if id := state.ID.ValueString(); id != "" {
		return r.Data.Nomad.GetVolume(ctx, ns, id)
	}
	return r.Data.Nomad.FindVolume(ctx, ns, state.Name.ValueString())
}

// record writes v into m, with the name of the node it lives on.
func (r *volumeResource) record(ctx context.Context, v *volume.Volume, m *volumeModel, diags *diag.Diagnostics) {
	if v.IsCSI() {
		m.fromVolume(ctx, v, "", diags)
		return
	}
	name, err := r.Data.Nomad.NodeName(ctx, v.NodeID)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the volume's node", err)
	}
	m.fromVolume(ctx, v, name, diags)
}

// ImportState accepts a host volume's ID or a CSI volume's ID, or
// `name` / `namespace/name` when one volume in the namespace has that
// name; it records the volume's type, so Read asks the right API.
func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := volumeIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, ref := r.Data.Nomad.Namespace(), importID
	if before, after, ok := strings.Cut(importID, "/"); ok {
		ns, ref = before, after
	}
	v, err := r.Data.Nomad.ResolveVolume(ctx, ns, ref, "")
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the volume", err)
		return
	}
	if v == nil {
		resp.Diagnostics.AddError("Volume not found", fmt.Sprintf("Namespace %q has no host volume and no CSI volume "+
			"with ID or name %q. `nomad volume status` lists both kinds.", ns, ref))
		return
	}
	typ := v.Type
	if typ == "" {
		typ = volume.TypeHost
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), v.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("type"), typ)...)
}
