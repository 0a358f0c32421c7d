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
func NewNodePoolResource() resource.Resource { return newNodePoolResource() }

// newNodePoolResource is the resource as its own type, for its list resource.
func newNodePoolResource() *nodePoolResource {
	r := &nodePoolResource{ResourceBase: shared.NewResourceBase("node_pool"), WithIdentity: shared.WithIdentity{Identity: nodePoolIdentity}}
	r.NamedObject = shared.NamedObject[nodePoolModel, *nodePoolModel, nomadclient.NodePool]{
		Base: &r.ResourceBase,
		Noun: "node pool", Plural: "node pools", ListHint: "List the pools with `nomad node pool list`.",
		Get: (*nomadclient.Client).GetNodePool, All: (*nomadclient.Client).ListNodePools,
		Listed:       notBuiltInNodePool,
		NameOf:       func(o *nomadclient.NodePool) string { return o.Name },
		ListIdentity: nodePoolIdentity, ModelSchema: nodePoolSchema, Write: r.write, From: (*nodePoolModel).fromNodePool,
	}
	return r
}

// Its Create, Read and Update, and its list resource's listing, are the
// ones every object known by name has (shared.NamedObject).
type nodePoolResource struct {
	shared.ResourceBase
	shared.WithIdentity
	shared.NamedObject[nodePoolModel, *nodePoolModel, nomadclient.NodePool]
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
	r.Import(ctx, name, resp)
}

// notBuiltInNodePool leaves out of listings the pools that cannot be
// managed.
func notBuiltInNodePool(p *nomadclient.NodePool) bool { return !nomadclient.IsBuiltInNodePool(p.Name) }
