package volume

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var (
	_ resource.ResourceWithConfigure      = &hostRegistrationResource{}
	_ resource.ResourceWithImportState    = &hostRegistrationResource{}
	_ resource.ResourceWithModifyPlan     = &hostRegistrationResource{}
	_ resource.ResourceWithValidateConfig = &hostRegistrationResource{}
	_ resource.ResourceWithIdentity       = &hostRegistrationResource{}
	_ resource.ResourceWithMoveState      = &hostRegistrationResource{}
)

var hostRegistrationIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the volume; default: the provider's namespace.", Optional: true},
	{Name: "id", Doc: "The volume's ID (a UUID)."},
}

// NewHostRegistrationResource builds berth_host_volume_registration.
func NewHostRegistrationResource() resource.Resource {
	return &hostRegistrationResource{moverBase: newMoverBase("host_volume_registration"), WithIdentity: shared.WithIdentity{Identity: hostRegistrationIdentity}}
}

type hostRegistrationResource struct {
	moverBase
	shared.WithIdentity
}

func (r *hostRegistrationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = hostRegistrationSchema(ctx)
}

// ValidateConfig refuses the capacity range Nomad refuses (sizes that do
// not parse are reported by their type, not again here).
func (r *hostRegistrationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var lo, hi sizeValue
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("capacity_min"), &lo)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("capacity_max"), &hi)...)
	if resp.Diagnostics.HasError() || !validSize(lo) || hi.IsUnknown() || (!hi.IsNull() && !validSize(hi)) {
		return
	}
	if err := volume.CheckCapacityRange(lo.Bytes(), hi.Bytes()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("capacity_max"), "Invalid capacity range",
			"Nomad refuses this range: "+err.Error()+". Set capacity_max to at least capacity_min, or remove capacity_min.")
	}
}

// ModifyPlan shows the namespace of a new registration, and keeps the
// computed values when no setting changes (sizes may be spelled
// differently, e.g. after a move), so such a plan is empty.
func (r *hostRegistrationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		var plan, state hostRegistrationModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !resp.Diagnostics.HasError() && sameHostRegistrationSettings(plan, state) {
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &state)...)
		}
		return
	}
	if shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.Data.Nomad.Namespace())...)
	}
}

// Create registers the directory and waits until the node reports it. A
// volume that does not become ready is deregistered again (its directory
// untouched), so nothing is left half-created.
func (r *hostRegistrationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan hostRegistrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if plan.Namespace.IsUnknown() || plan.Namespace.ValueString() == "" {
		plan.Namespace = types.StringValue(r.Data.Nomad.Namespace())
	}
	reg := plan.toRegistration(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	reg.ID = ""
	id, warnings, err := r.Data.Nomad.RegisterHostVolume(ctx, reg)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not register the host volume", err)
		resp.Diagnostics.AddAttributeError(path.Root("host_path"), "Nothing was registered",
			fmt.Sprintf("Nomad refused to register %q on node %s as host volume %q. Check that the directory exists on that "+
				"node (its client checks), that the node is up, and that no other volume on the node is called %q.",
				reg.HostPath, reg.NodeID, reg.Name, reg.Name))
		return
	}
	addWarnings(&resp.Diagnostics, warnings)
	if _, err := r.Data.Nomad.WaitVolumeReady(ctx, reg.Namespace, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "The host volume did not become ready", err)
		r.undo(ctx, reg.Namespace, id, &resp.Diagnostics)
		return
	}
	plan.ID = types.StringValue(id)
	r.readBack(ctx, reg.Namespace, id, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// undo deregisters a registration Create could not finish.
func (r *hostRegistrationResource) undo(ctx context.Context, ns, id string, diags *diag.Diagnostics) {
	fresh := shared.CleanupContext(ctx)
	if err := r.Data.Nomad.DeregisterHostVolume(fresh, ns, id); err != nil {
		shared.AddNomadError(diags, "Could not deregister the unfinished registration", err)
		diags.AddError("Host volume left registered",
			fmt.Sprintf("Host volume %s stays registered in namespace %q, not ready. Deregister it with `nomad volume delete -type host "+
				"-namespace %s %s` (its directory is not touched), then apply again.", id, ns, ns, id))
		return
	}
	diags.AddError("Nothing was registered", "The registration was undone; the directory was not touched. Check that the node is up, then apply again.")
}

func (r *hostRegistrationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state hostRegistrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.Data.Nomad.GetHostRegistration(ctx, state.Namespace.ValueString(), state.ID.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the host volume", err)
		return
	}
	if reg == nil {
		tflog.Info(ctx, "Host volume is no longer registered; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if reg.PluginID != "" {
		resp.Diagnostics.AddWarning("Host volume now has a plugin",
			fmt.Sprintf("Nomad now records plugin %q for host volume %s (registered again outside Terraform). Deleting it would ask "+
				"that plugin to delete the volume's data, so berth will refuse to destroy it.", reg.PluginID, reg.ID))
	}
	state.fromRegistration(ctx, reg, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update registers the volume again under its ID with the planned
// settings. Nomad refuses while allocations use the volume.
func (r *hostRegistrationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan hostRegistrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reg := plan.toRegistration(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	_, warnings, err := r.Data.Nomad.RegisterHostVolume(ctx, reg)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not update the host volume's registration", err)
		return
	}
	addWarnings(&resp.Diagnostics, warnings)
	if _, err := r.Data.Nomad.WaitVolumeReady(ctx, reg.Namespace, reg.ID); err != nil {
		resp.Diagnostics.AddWarning("Host volume not ready", fmt.Sprintf("The registration was updated, but the volume is not ready yet: %v", err))
	}
	r.readBack(ctx, reg.Namespace, reg.ID, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deregisters the volume: Nomad and the node's client forget it,
// and the directory and its data stay. It refuses a volume that has come
// to have a plugin (Nomad would ask the plugin to delete the data) and
// one that allocations that may still run use.
func (r *hostRegistrationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state hostRegistrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ns, id := state.Namespace.ValueString(), state.ID.ValueString()
	reg, err := r.Data.Nomad.GetHostRegistration(ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the host volume", err)
		return
	}
	if reg == nil {
		return
	}
	if reg.PluginID != "" {
		resp.Diagnostics.AddError("Host volume has a plugin",
			fmt.Sprintf("Nomad records plugin %q for host volume %s, so deleting it would ask the plugin to delete the volume's "+
				"data; nothing was deregistered. Remove it from the configuration with a `removed` block (lifecycle { destroy = false }) "+
				"and delete it with `nomad volume delete` only if its data may go.", reg.PluginID, id))
		return
	}
	if live := reg.LiveAllocations(); len(live) > 0 {
		resp.Diagnostics.AddError("Host volume in use",
			fmt.Sprintf("Host volume %s (%q) is used by %s. Stop those jobs (or remove the volume from them) first; nothing was deregistered.",
				id, reg.Name, volume.DescribeAllocations(live)))
		return
	}
	if err := r.Data.Nomad.DeregisterHostVolume(ctx, ns, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not deregister the host volume", err)
		return
	}
	if err := r.Data.Nomad.WaitVolumeGone(ctx, ns, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "The host volume is still registered", err)
	}
}

// ImportState accepts `id` or `namespace/id`. A volume with a plugin is
// refused: destroying it would have the plugin delete its data.
func (r *hostRegistrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := hostRegistrationIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, id := r.Data.Nomad.Namespace(), importID
	if before, after, ok := strings.Cut(importID, "/"); ok {
		ns, id = before, after
	}
	reg, err := r.Data.Nomad.GetHostRegistration(ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the host volume", err)
		return
	}
	if reg == nil {
		resp.Diagnostics.AddError("Host volume not found", fmt.Sprintf("Namespace %q has no host volume with ID %q "+
			"(`nomad volume status -type host -namespace %s` lists them).", ns, id, ns))
		return
	}
	if reg.PluginID != "" {
		resp.Diagnostics.AddError("Host volume was created by a plugin",
			fmt.Sprintf("Host volume %s (%q) has plugin %q: it was created, not registered, and deleting it asks the plugin to "+
				"delete its data. berth_host_volume_registration manages only volumes without a plugin; import it as a "+
				"berth_volume instead.", id, reg.Name, reg.PluginID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), reg.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), reg.Namespace)...)
}

// readBack records the registration into m after a write; failing to read
// it leaves m as planned (with its unknowns null) and warns.
func (r *hostRegistrationResource) readBack(ctx context.Context, ns, id string, m *hostRegistrationModel, diags *diag.Diagnostics) {
	fresh := shared.CleanupContext(ctx)
	reg, err := r.Data.Nomad.GetHostRegistration(fresh, ns, id)
	if err == nil && reg != nil {
		m.fromRegistration(fresh, reg, diags)
		return
	}
	diags.AddWarning("Could not read the host volume back",
		fmt.Sprintf("Host volume %s was registered, but reading it back failed (%v). The next terraform plan reads it from Nomad.", id, err))
	m.ID = types.StringValue(id)
	if m.NodePool.IsUnknown() {
		m.NodePool = types.StringNull()
	}
	if m.State.IsUnknown() {
		m.State = types.StringNull()
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(types.StringType)
	}
}
