package variable

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

var (
	_ resource.ResourceWithConfigure      = &variableResource{}
	_ resource.ResourceWithImportState    = &variableResource{}
	_ resource.ResourceWithValidateConfig = &variableResource{}
	_ resource.ResourceWithModifyPlan     = &variableResource{}
	_ resource.ResourceWithIdentity       = &variableResource{}
)

// NewVariableResource builds the berth_variable resource.
func NewVariableResource() resource.Resource { return newVariableResource() }

// newVariableResource is the resource as its own type, for its list resource.
func newVariableResource() *variableResource {
	return &variableResource{ResourceBase: shared.NewResourceBase("variable"), WithIdentity: shared.WithIdentity{Identity: variableIdentity}}
}

type variableResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *variableResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = variableSchema()
}

// secretItems reads the write-only items from the configuration, the only
// place Terraform hands them over.
func secretItems(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) map[string]string {
	var wo types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("items_wo"), &wo)...)
	out := map[string]string{}
	if !wo.IsNull() && !wo.IsUnknown() {
		diags.Append(wo.ElementsAs(ctx, &out, false)...)
	}
	return out
}

func (r *variableResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan variableModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	secret := secretItems(ctx, req.Config, &resp.Diagnostics)
	plain := plan.plainItems(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := plan.ref()
	meta, err := r.Data.Nomad.CreateVariable(ctx, ref, variable.Merge(plain, secret))
	var conflict *nomadclient.VariableConflictError
	switch {
	case errors.As(err, &conflict):
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Variable already exists",
			fmt.Sprintf("Nomad already has a Variable at %s in namespace %q (modify index %d): berth creates only where "+
				"nothing is, so it wrote nothing. Choose another path, or manage this Variable here by importing it: "+
				"terraform import <address> %s", ref.Path, ref.Namespace, conflict.Found.ModifyIndex, refID(ref)))
		return
	case err != nil:
		shared.AddNomadError(&resp.Diagnostics, "Could not create the Variable", err)
		var uncertain *nomadclient.UncertainWriteError
		if errors.As(err, &uncertain) {
			resp.Diagnostics.AddError("The Variable may exist", fmt.Sprintf("Nomad's answer was lost and berth could not "+
				"read the Variable back: it may have been created at %s in namespace %q. If the next apply says it already "+
				"exists, import it: terraform import <address> %s", ref.Path, ref.Namespace, refID(ref)))
		}
		return
	}
	tflog.Info(ctx, "Created Variable", map[string]any{"namespace": ref.Namespace, "path": ref.Path})
	r.recordWrite(ctx, &plan, meta, secret, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// recordWrite completes the state after berth's own write: the index it
// wrote at (the next check-and-set's), the write-only keys, in sync.
func (r *variableResource) recordWrite(ctx context.Context, m *variableModel, meta variable.Meta, secret map[string]string, diags *diag.Diagnostics) {
	m.ID = types.StringValue(refID(m.ref()))
	m.ModifyIndex = types.Int64Value(int64(meta.ModifyIndex))
	m.ItemsWOKeys = keySet(ctx, variable.SortedKeys(secret), diags)
	m.InSync = types.BoolValue(true)
	m.ItemsWO = types.MapNull(types.StringType)
}

func (r *variableResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state variableModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := state.ref()
	v, err := r.Data.Nomad.GetVariable(ctx, ref.Namespace, ref.Path)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the Variable", err)
		return
	}
	if v == nil {
		tflog.Info(ctx, "Variable is gone from Nomad; removing it from state", map[string]any{"namespace": ref.Namespace, "path": ref.Path})
		resp.State.RemoveResource(ctx)
		return
	}
	warnWithheld(&resp.Diagnostics, ref, state.fromNomad(ctx, v, &resp.Diagnostics))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *variableResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state variableModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	secret := secretItems(ctx, req.Config, &resp.Diagnostics)
	plain := plan.plainItems(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, index := plan.ref(), uint64(state.ModifyIndex.ValueInt64())
	meta, err := r.Data.Nomad.UpdateVariable(ctx, ref, variable.Merge(plain, secret), index)
	if err != nil {
		addWriteError(&resp.Diagnostics, "Could not update the Variable", "update", err)
		return
	}
	tflog.Info(ctx, "Updated Variable", map[string]any{"namespace": ref.Namespace, "path": ref.Path})
	r.recordWrite(ctx, &plan, meta, secret, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *variableResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state variableModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := state.ref()
	if err := r.Data.Nomad.DeleteVariable(ctx, ref, uint64(state.ModifyIndex.ValueInt64())); err != nil {
		addWriteError(&resp.Diagnostics, "Could not delete the Variable", "destroy", err)
		return
	}
	tflog.Info(ctx, "Deleted Variable", map[string]any{"namespace": ref.Namespace, "path": ref.Path})
}

// addWriteError reports a failed update or delete; a check-and-set
// conflict says what changed in Nomad and what to do.
func addWriteError(diags *diag.Diagnostics, summary, op string, err error) {
	var conflict *nomadclient.VariableConflictError
	if !errors.As(err, &conflict) {
		shared.AddNomadError(diags, summary, err)
		return
	}
	ref := conflict.Ref
	now := "Nomad now has no Variable there: it was deleted"
	if conflict.Found.ModifyIndex != 0 {
		now = fmt.Sprintf("Nomad now has it at modify index %d, written %s UTC: it was changed (or deleted and "+
			"created again)", conflict.Found.ModifyIndex, conflict.Found.ModifyTime.UTC().Format("2006-01-02 15:04:05"))
	}
	diags.AddError("Variable changed in Nomad since it was read",
		fmt.Sprintf("berth planned this %s from Variable %s in namespace %q as it was at modify index %d. %s outside this "+
			"Terraform run after berth read it. berth writes Variables with check-and-set, so it wrote nothing rather "+
			"than overwrite that change unseen. Run `terraform plan` again: the refresh reads the Variable as Nomad holds "+
			"it now and the plan shows what differs, by name; apply that plan to put the configuration back, or take "+
			"the change into the configuration.", op, ref.Path, ref.Namespace, conflict.Expected, now))
}
