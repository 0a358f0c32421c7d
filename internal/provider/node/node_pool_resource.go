package node

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ resource.ResourceWithConfigure      = &nodePoolResource{}
	_ resource.ResourceWithImportState    = &nodePoolResource{}
	_ resource.ResourceWithValidateConfig = &nodePoolResource{}
)

// NewNodePoolResource builds the berth_node_pool resource.
func NewNodePoolResource() resource.Resource {
	return &nodePoolResource{ResourceBase: shared.NewResourceBase("node_pool"), WithIdentity: shared.WithIdentity{Identity: nodePoolIdentity}}
}

type nodePoolResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodePoolSchema()
}

// ValidateConfig refuses Nomad's built-in pools, which always exist and
// which Nomad refuses to create, change or delete.
func (r *nodePoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if name.IsNull() || name.IsUnknown() || !nomadclient.IsBuiltInNodePool(name.ValueString()) {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("name"), "Built-in node pool",
		fmt.Sprintf("%q is one of Nomad's built-in node pools (%q holds every node, %q the nodes that name no pool): it always "+
			"exists and Nomad refuses to create, change or delete it. Give the pool another name; jobs can use the built-in "+
			"pools by name without a berth_node_pool.", name.ValueString(), nomadclient.NodePoolAll, nomadclient.NodePoolDefault))
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	existing, err := r.Data.Nomad.GetNodePool(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not check whether the node pool exists", err)
		return
	}
	if existing != nil {
		// Nomad's write creates or overwrites: never take over a pool
		// someone else made.
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Node pool already exists",
			fmt.Sprintf("Nomad already has a node pool named %q. Choose another name, or manage it here by importing it: "+
				"terraform import <address> %s", name, name))
		return
	}
	if !r.write(ctx, &plan, "Could not create the node pool", &resp.Diagnostics) {
		return
	}
	tflog.Info(ctx, "Created node pool", map[string]any{"name": name})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := r.Data.Nomad.GetNodePool(ctx, state.Name.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the node pool", err)
		return
	}
	if p == nil {
		tflog.Info(ctx, "Node pool is gone from Nomad; removing it from state", map[string]any{"name": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromNodePool(ctx, p, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.write(ctx, &plan, "Could not update the node pool", &resp.Diagnostics) {
		return
	}
	tflog.Info(ctx, "Updated node pool", map[string]any{"name": plan.Name.ValueString()})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	err := r.Data.Nomad.DeleteNodePool(ctx, name)
	var inUse *nomadclient.NodePoolInUseError
	switch {
	case err == nil:
		tflog.Info(ctx, "Deleted node pool", map[string]any{"name": name})
	case errors.As(err, &inUse):
		resp.Diagnostics.AddError("Node pool is in use", nodePoolInUseDetail(inUse))
	default:
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the node pool", err)
	}
}

// nodePoolInUseDetail says what keeps a pool from being deleted and what
// to do about it.
func nodePoolInUseDetail(e *nomadclient.NodePoolInUseError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Nomad refused to delete node pool %q: %v.", e.Name, strings.TrimSpace(e.Err.Error()))
	if len(e.Nodes) > 0 {
		fmt.Fprintf(&b, "\n\nNodes in the pool: %s.", strings.Join(e.Nodes, ", "))
	}
	if len(e.Jobs) > 0 {
		fmt.Fprintf(&b, "\n\nUnfinished jobs in the pool: %s.", strings.Join(e.Jobs, ", "))
	}
	if e.ListErr != nil {
		fmt.Fprintf(&b, "\n\n(berth could not list everything in the pool: %v.)", e.ListErr)
	}
	b.WriteString("\n\nMove the nodes to another pool (client.node_pool in their agent configuration, then restart " +
		"the agents) and stop the jobs or move them to another pool (node_pool of the berth_instance or berth_job, or " +
		"`nomad job stop -purge <job>`), then destroy again.")
	return b.String()
}

// write sends plan to Nomad. A scheduler configuration refused by Nomad
// CE becomes one diagnostic at the attribute that asked for it; the
// refused write created or changed nothing.
func (r *nodePoolResource) write(ctx context.Context, plan *nodePoolModel, summary string, diags *diag.Diagnostics) bool {
	pool := plan.toNodePool(ctx, diags)
	if diags.HasError() {
		return false
	}
	err := r.Data.Nomad.WriteNodePool(ctx, pool)
	var enterprise *nomadclient.EnterpriseRequiredError
	switch {
	case err == nil:
		return true
	case errors.As(err, &enterprise):
		diags.AddAttributeError(plan.schedulerConfigPath(), "Node pool scheduler settings need Nomad Enterprise",
			fmt.Sprintf("Nomad said: %v. A node pool's scheduler configuration (scheduler_algorithm, memory_oversubscription) "+
				"is a Nomad Enterprise feature, and this cluster runs Nomad CE, which refuses the whole write: node pool %q "+
				"was not created or changed. Remove scheduler_algorithm and memory_oversubscription from the configuration "+
				"(the cluster-wide scheduler configuration, `nomad operator scheduler set-config`, applies to every pool), "+
				"or use a Nomad Enterprise cluster.", strings.TrimSpace(enterprise.Err.Error()), pool.Name))
	default:
		shared.AddNomadError(diags, summary, err)
	}
	return false
}

// readBack records the pool as Nomad now has it; when the read fails, the
// plan as written is kept (a warning says so).
func (r *nodePoolResource) readBack(ctx context.Context, plan *nodePoolModel, diags *diag.Diagnostics) {
	plan.ID = plan.Name
	p, err := r.Data.Nomad.GetNodePool(ctx, plan.Name.ValueString())
	if err != nil || p == nil {
		var found diag.Diagnostics
		if err == nil {
			err = errors.New("the pool was written but is not there")
		}
		shared.AddNomadError(&found, "Could not read the node pool back", err)
		for _, d := range found {
			diags.AddWarning(d.Summary(), d.Detail()+" State records the pool as configured; the next refresh reads it again.")
		}
		return
	}
	plan.fromNodePool(ctx, p, diags)
}

// ImportState imports a pool by name (or by its identity's name).
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := nodePoolIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if nomadclient.IsBuiltInNodePool(name) {
		resp.Diagnostics.AddError("Built-in node pool",
			fmt.Sprintf("%q is one of Nomad's built-in node pools, which cannot be managed: Nomad refuses to change or delete it.", name))
		return
	}
	p, err := r.Data.Nomad.GetNodePool(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the node pool", err)
		return
	}
	if p == nil {
		resp.Diagnostics.AddError("Node pool not found",
			fmt.Sprintf("Nomad has no node pool named %q. List the pools with `nomad node pool list`.", name))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
