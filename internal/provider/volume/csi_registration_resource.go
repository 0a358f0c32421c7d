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
	_ resource.ResourceWithConfigure   = &csiRegistrationResource{}
	_ resource.ResourceWithImportState = &csiRegistrationResource{}
	_ resource.ResourceWithModifyPlan  = &csiRegistrationResource{}
	_ resource.ResourceWithIdentity    = &csiRegistrationResource{}
	_ resource.ResourceWithMoveState   = &csiRegistrationResource{}
)

var csiRegistrationIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the volume; default: the provider's namespace.", Optional: true},
	{Name: "volume_id", Doc: "The volume's ID in Nomad."},
}

// NewCSIRegistrationResource builds berth_csi_volume_registration.
func NewCSIRegistrationResource() resource.Resource {
	return &csiRegistrationResource{moverBase: newMoverBase("csi_volume_registration"), WithIdentity: shared.WithIdentity{Identity: csiRegistrationIdentity}}
}

type csiRegistrationResource struct {
	moverBase
	shared.WithIdentity
}

func (r *csiRegistrationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = csiRegistrationSchema(ctx)
}

// ModifyPlan shows the namespace of a new registration, and keeps the
// computed values when no setting changes (sizes may be spelled
// differently, e.g. after a move), so such a plan is empty.
func (r *csiRegistrationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		var plan, state csiRegistrationModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !resp.Diagnostics.HasError() && sameRegistrationSettings(plan, state) {
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &state)...)
		}
		return
	}
	if shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.Data.Nomad.Namespace())...)
	}
}

func (r *csiRegistrationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan csiRegistrationModel
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
	ctx, redact := r.withSecrets(ctx, req.Config.GetAttribute, reg, &resp.Diagnostics)
	defer func() { resp.Diagnostics = redact(resp.Diagnostics) }()
	if resp.Diagnostics.HasError() {
		return
	}
	// Registering an ID Nomad knows would update that volume: adopting it
	// is import's job, so it is refused.
	existing, err := r.Data.Nomad.GetCSIRegistration(ctx, reg.Namespace, reg.ID)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not check the volume ID", err)
		return
	}
	if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("volume_id"), "Volume ID already registered",
			fmt.Sprintf("Nomad already has a CSI volume %q in namespace %q (external ID %q, plugin %q). Import it "+
				"(terraform import, or an import block with id = %q), or choose another volume_id.",
				reg.ID, reg.Namespace, existing.ExternalID, existing.PluginID, reg.Namespace+"/"+reg.ID))
		return
	}
	warnings, err := r.Data.Nomad.RegisterCSIVolume(ctx, reg)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not register the CSI volume", err)
		resp.Diagnostics.AddAttributeError(path.Root("external_id"), "Nothing was registered",
			fmt.Sprintf("Nomad refused to register CSI volume %q (external ID %q) with plugin %q. Check that the plugin is "+
				"healthy (`nomad plugin status %s`), that the volume exists where the plugin looks for it, and that the plugin "+
				"supports the capabilities asked for.", reg.ID, reg.ExternalID, reg.PluginID, reg.PluginID))
		return
	}
	addWarnings(&resp.Diagnostics, warnings)
	r.readBack(ctx, reg.Namespace, reg.ID, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *csiRegistrationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state csiRegistrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.Data.Nomad.GetCSIRegistration(ctx, state.Namespace.ValueString(), state.VolumeID.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the CSI volume", err)
		return
	}
	if reg == nil {
		tflog.Info(ctx, "CSI volume is no longer registered; removing it from state", map[string]any{"id": state.VolumeID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromRegistration(ctx, reg, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *csiRegistrationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan csiRegistrationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reg := plan.toRegistration(ctx, &resp.Diagnostics)
	ctx, redact := r.withSecrets(ctx, req.Config.GetAttribute, reg, &resp.Diagnostics)
	defer func() { resp.Diagnostics = redact(resp.Diagnostics) }()
	if resp.Diagnostics.HasError() {
		return
	}
	// Nomad replaces the secrets it holds with each registration's, and
	// never shows them: every update sends the configuration's.
	warnings, err := r.Data.Nomad.RegisterCSIVolume(ctx, reg)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not update the CSI volume's registration", err)
		return
	}
	addWarnings(&resp.Diagnostics, warnings)
	r.readBack(ctx, reg.Namespace, reg.ID, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deregisters the volume: Nomad forgets it, the plugin is not
// asked to delete it, and its data stays. Claims of allocations that may
// still run refuse it; claims of stopped ones are waited out first.
func (r *csiRegistrationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state csiRegistrationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ns, id := state.Namespace.ValueString(), state.VolumeID.ValueString()
	reg, err := r.Data.Nomad.GetCSIRegistration(ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the CSI volume", err)
		return
	}
	if reg == nil {
		return
	}
	if live := (&volume.Volume{Allocations: reg.Allocations}).LiveAllocations(); len(live) > 0 {
		resp.Diagnostics.AddError("CSI volume in use",
			fmt.Sprintf("CSI volume %q is used by %s. Stop those jobs (or remove the volume from them) first; nothing was deregistered.",
				id, volume.DescribeAllocations(live)))
		return
	}
	if err := r.Data.Nomad.WaitCSIVolumeUnclaimed(ctx, ns, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Nomad did not release the volume's claims", err)
		return
	}
	if err := r.Data.Nomad.DeregisterCSIVolume(ctx, ns, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not deregister the CSI volume", err)
		return
	}
	if err := r.Data.Nomad.WaitCSIVolumeGone(ctx, ns, id); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "The CSI volume is still registered", err)
	}
}

// ImportState accepts `volume_id` or `namespace/volume_id`.
func (r *csiRegistrationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := csiRegistrationIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, id := r.Data.Nomad.Namespace(), importID
	if before, after, ok := strings.Cut(importID, "/"); ok {
		ns, id = before, after
	}
	reg, err := r.Data.Nomad.GetCSIRegistration(ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the CSI volume", err)
		return
	}
	if reg == nil {
		resp.Diagnostics.AddError("CSI volume not found", fmt.Sprintf("Namespace %q has no CSI volume with ID %q "+
			"(`nomad volume status -type csi` lists them).", ns, id))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("volume_id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
}

// getAttribute is tfsdk.Config's GetAttribute.
type getAttribute func(context.Context, path.Path, any) diag.Diagnostics

// withSecrets adds secrets_wo from the configuration to reg, masks their
// values in every log line written through the returned context, and
// returns the function that redacts them from diagnostics.
func (r *csiRegistrationResource) withSecrets(ctx context.Context, get getAttribute, reg *volume.CSIRegistration,
	diags *diag.Diagnostics) (context.Context, func(diag.Diagnostics) diag.Diagnostics) {
	var secrets types.Map
	diags.Append(get(ctx, path.Root("secrets_wo"), &secrets)...)
	diags.Append(secrets.ElementsAs(ctx, &reg.Secrets, false)...)
	values := reg.SecretValues()
	return maskCSISecrets(ctx, values), func(d diag.Diagnostics) diag.Diagnostics { return redactCSISecrets(d, values) }
}

// readBack records the registration into m after a write; failing to read
// it leaves m as planned (with its unknowns null) and warns.
func (r *csiRegistrationResource) readBack(ctx context.Context, ns, id string, m *csiRegistrationModel, diags *diag.Diagnostics) {
	fresh := shared.CleanupContext(ctx)
	reg, err := r.Data.Nomad.GetCSIRegistration(fresh, ns, id)
	if err == nil && reg != nil {
		m.fromRegistration(fresh, reg, diags)
		return
	}
	diags.AddWarning("Could not read the CSI volume back",
		fmt.Sprintf("CSI volume %q was registered, but reading it back failed (%v). The next terraform plan reads it from Nomad.", id, err))
	m.ID = types.StringValue(id)
	if m.CapacityBytes.IsUnknown() {
		m.CapacityBytes = types.Int64Null()
	}
	if m.State.IsUnknown() {
		m.State = types.StringNull()
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(types.StringType)
	}
}

// addWarnings adds Nomad's warnings to a write, if it gave any.
func addWarnings(diags *diag.Diagnostics, warnings string) {
	if strings.TrimSpace(warnings) != "" {
		diags.AddWarning("Nomad warned", warnings)
	}
}
