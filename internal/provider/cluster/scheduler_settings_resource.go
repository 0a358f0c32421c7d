package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ resource.ResourceWithConfigure   = &schedulerSettingsResource{}
	_ resource.ResourceWithImportState = &schedulerSettingsResource{}
	_ resource.ResourceWithIdentity    = &schedulerSettingsResource{}
	_ resource.ResourceWithModifyPlan  = &schedulerSettingsResource{}
)

// planReadTimeout bounds the plan-time read of the configuration a create
// takes over: a slow Nomad must not hold up a plan for long.
const planReadTimeout = 30 * time.Second

// NewSchedulerSettingsResource builds the berth_scheduler_settings resource.
func NewSchedulerSettingsResource() resource.Resource { return newSchedulerSettingsResource() }

// newSchedulerSettingsResource is the resource as its own type, for its list resource.
func newSchedulerSettingsResource() *schedulerSettingsResource {
	return &schedulerSettingsResource{ResourceBase: shared.NewResourceBase("scheduler_settings"), WithIdentity: shared.WithIdentity{Identity: schedulerSettingsIdentity}}
}

type schedulerSettingsResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

// schedulerSettingsIdentity identifies berth_scheduler_settings: one per
// region.
var schedulerSettingsIdentity = shared.SingleIdentity{Name: "region", Doc: "The region whose scheduler configuration it is."}

func (r *schedulerSettingsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schedulerSettingsSchema()
}

// ModifyPlan reads, for a create, the configuration berth will take over
// into found: the plan shows it, and the apply takes over only that.
func (r *schedulerSettingsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || r.Data == nil {
		return // destroy, update, or the provider is not configured yet (create then reads at apply)
	}
	ctx, cancel := context.WithTimeout(ctx, planReadTimeout)
	defer cancel()
	found, _, err := r.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration berth would take over", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("found"), foundValue(found))...)
}

// Create takes the configuration over as the plan found it (destroy puts
// it back): it writes the planned one check-and-set on the index it reads,
// and only if Nomad still holds what the plan found.
func (r *schedulerSettingsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan schedulerSettingsModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	region, err := r.Data.Nomad.Region(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not find the region", err)
		return
	}
	found, index, err := r.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration", err)
		return
	}
	if planned := foundSettings(plan.Found); planned != nil && len(planned.Changes(found)) > 0 {
		addSchedulerChangedSincePlan(&resp.Diagnostics, "Could not take over the scheduler configuration", *planned, found)
		return
	}
	want := plan.settings()
	tflog.Info(ctx, "Taking over the scheduler configuration", map[string]any{
		"region": region, "found_index": index, "changes": strings.Join(found.Changes(want), "; ")})
	newIndex, err := r.Data.Nomad.WriteSchedulerSettings(ctx, want, index)
	if err != nil {
		addSchedulerWriteError(&resp.Diagnostics, "Could not write the scheduler configuration", err, &found)
		return
	}
	writeSchedulerFound(ctx, resp.Private, found, &resp.Diagnostics)
	writeSchedulerIndex(ctx, resp.Private, newIndex, &resp.Diagnostics)
	plan.record(region, want)
	plan.Found = foundValue(found)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *schedulerSettingsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state schedulerSettingsModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	region := state.Region.ValueString()
	if region == "" { // imported or moved: not known yet
		var err error
		if region, err = r.Data.Nomad.Region(ctx); err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not find the region", err)
			return
		}
	}
	now, index, err := r.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration", err)
		return
	}
	found := readSchedulerFound(ctx, req.Private, &resp.Diagnostics)
	if found == nil {
		// Imported or moved: how berth found the configuration is how it is now.
		found = &now
		writeSchedulerFound(ctx, resp.Private, now, &resp.Diagnostics)
	}
	writeSchedulerIndex(ctx, resp.Private, index, &resp.Diagnostics)
	state.record(region, now)
	state.Found = foundValue(*found)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update writes the planned configuration check-and-set on the index the
// refresh read: a change made in Nomad since then refuses the apply.
func (r *schedulerSettingsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state schedulerSettingsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	index := readSchedulerIndex(ctx, req.Private, &resp.Diagnostics)
	had := state.settings()
	if index == 0 {
		// No index recorded (its last write could not be read back): take
		// Nomad's, if Nomad still holds what state says.
		now, nowIndex, err := r.Data.Nomad.GetSchedulerSettings(ctx)
		if err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration", err)
			return
		}
		if len(had.Changes(now)) > 0 {
			addSchedulerWriteError(&resp.Diagnostics, "Could not write the scheduler configuration",
				&nomadclient.SchedulerSettingsChangedError{Now: now, NowIndex: nowIndex}, &had)
			return
		}
		index = nowIndex
	}
	want := plan.settings()
	tflog.Info(ctx, "Writing the scheduler configuration", map[string]any{"index": index, "changes": strings.Join(had.Changes(want), "; ")})
	newIndex, err := r.Data.Nomad.WriteSchedulerSettings(ctx, want, index)
	if err != nil {
		addSchedulerWriteError(&resp.Diagnostics, "Could not write the scheduler configuration", err, &had)
		return
	}
	writeSchedulerIndex(ctx, resp.Private, newIndex, &resp.Diagnostics)
	plan.record(state.Region.ValueString(), want)
	if plan.Found.IsUnknown() { // a state from before found, not refreshed since
		plan.Found = types.ObjectNull(foundTypes)
		if f := readSchedulerFound(ctx, req.Private, &resp.Diagnostics); f != nil {
			plan.Found = foundValue(*f)
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete puts back the configuration berth found when it took it over
// (created, imported or moved), and only if Nomad still holds what the
// destroy's plan read: a change made since (an operator's freeze during an
// incident) refuses the destroy, and nothing is written.
func (r *schedulerSettingsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state schedulerSettingsModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	found := readSchedulerFound(ctx, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if found == nil {
		resp.Diagnostics.AddWarning("Scheduler configuration left as it is",
			"berth has no record of how it found the scheduler configuration (its private state was lost), so destroy "+
				"leaves the configuration as Nomad holds it. Check it with `nomad operator scheduler get-config`.")
		return
	}
	now, index, err := r.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration", err)
		return
	}
	// The plan saw the state (its refresh) at the index recorded then.
	seen, seenIndex := state.settings(), readSchedulerIndex(ctx, req.Private, &resp.Diagnostics)
	if index != seenIndex && len(seen.Changes(now)) > 0 {
		addSchedulerChangedSincePlan(&resp.Diagnostics, "Could not put the scheduler configuration back", seen, now)
		return
	}
	changes := now.Changes(*found)
	if len(changes) == 0 {
		return
	}
	tflog.Info(ctx, "Putting the scheduler configuration back as berth found it", map[string]any{"changes": strings.Join(changes, "; ")})
	// Nomad holds what the plan saw; check-and-set on this read keeps it so.
	if _, err := r.Data.Nomad.WriteSchedulerSettings(ctx, *found, index); err != nil {
		addSchedulerWriteError(&resp.Diagnostics, "Could not put the scheduler configuration back", err, &now)
	}
}

// ImportState takes the region's name (or the identity's region); it
// must be the region the provider talks to.
func (r *schedulerSettingsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := schedulerSettingsIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	region, err := r.Data.Nomad.Region(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not find the region", err)
		return
	}
	if id != region {
		resp.Diagnostics.AddError("Cannot import the scheduler configuration",
			fmt.Sprintf("The import ID is %q, but the provider talks to region %q; the ID is the region's name. Import "+
				"with ID %q, or set the provider's `region` to %q.", id, region, region, id))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), region)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
}

// addSchedulerWriteError reports a failed write; a refused check-and-set
// names what changed in Nomad since berth read it (from had, when known).
func addSchedulerWriteError(diags *diag.Diagnostics, summary string, err error, had *nomadclient.SchedulerSettings) {
	var changed *nomadclient.SchedulerSettingsChangedError
	if !errors.As(err, &changed) {
		shared.AddNomadError(diags, summary, err)
		return
	}
	detail := "Nomad refused the check-and-set write: " + changed.Error() + "."
	if had != nil && changed.NowIndex > 0 {
		if c := had.Changes(changed.Now); len(c) > 0 {
			detail += "\n\nChanged in Nomad since berth read it:\n  - " + strings.Join(c, "\n  - ")
		}
	}
	detail += "\n\nNothing was written. Run `terraform plan` again to see the configuration as Nomad now holds it, then " +
		"apply; find who else writes it (`nomad operator scheduler set-config`, another Terraform configuration) so " +
		"that only one of them manages it."
	diags.AddError(summary, detail)
}

// addSchedulerChangedSincePlan refuses an apply because Nomad no longer
// holds what its plan read (seen), naming each change.
func addSchedulerChangedSincePlan(diags *diag.Diagnostics, summary string, seen, now nomadclient.SchedulerSettings) {
	diags.AddError(summary, "The scheduler configuration was changed in Nomad after the plan read it:\n  - "+
		strings.Join(seen.Changes(now), "\n  - ")+"\n\nNothing was written. Run `terraform plan` again to see the "+
		"configuration as Nomad now holds it, then apply; find who else writes it (`nomad operator scheduler "+
		"set-config`, another Terraform configuration) so that only one of them manages it.")
}
