package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type nodePoolModel struct {
	ID                     types.String `tfsdk:"id"`
	Name                   types.String `tfsdk:"name"`
	Description            types.String `tfsdk:"description"`
	Meta                   types.Map    `tfsdk:"meta"`
	SchedulerAlgorithm     types.String `tfsdk:"scheduler_algorithm"`
	MemoryOversubscription types.Bool   `tfsdk:"memory_oversubscription"`
}

// NameAndID are the attributes shared.NamedObject reads and sets.
func (m *nodePoolModel) NameAndID() (name, id *types.String) { return &m.Name, &m.ID }

// toNodePool is the pool to write for m.
func (m *nodePoolModel) toNodePool(ctx context.Context, diags *diag.Diagnostics) nomadclient.NodePool {
	p := nomadclient.NodePool{
		Name: m.Name.ValueString(), Description: m.Description.ValueString(),
		SchedulerAlgorithm: m.SchedulerAlgorithm.ValueString(),
	}
	if !m.MemoryOversubscription.IsNull() && !m.MemoryOversubscription.IsUnknown() {
		v := m.MemoryOversubscription.ValueBool()
		p.MemoryOversubscription = &v
	}
	diags.Append(m.Meta.ElementsAs(ctx, &p.Meta, false)...)
	return p
}

// fromNodePool writes what Nomad reports into m. Nomad does not tell an
// empty description or meta from an unset one, so m's spelling of
// "nothing" ("" or {}) is kept.
func (m *nodePoolModel) fromNodePool(ctx context.Context, p *nomadclient.NodePool, diags *diag.Diagnostics) {
	m.ID = types.StringValue(p.Name)
	m.Name = types.StringValue(p.Name)
	if p.Description != "" || m.Description.IsNull() || m.Description.IsUnknown() || m.Description.ValueString() != "" {
		m.Description = shared.StringOrNull(p.Description)
	}
	m.Meta = shared.KeepEmptyMap(m.Meta, shared.MapOrNull(ctx, p.Meta, diags))
	m.SchedulerAlgorithm = shared.StringOrNull(p.SchedulerAlgorithm)
	m.MemoryOversubscription = types.BoolNull()
	if p.MemoryOversubscription != nil {
		m.MemoryOversubscription = types.BoolValue(*p.MemoryOversubscription)
	}
}

// schedulerConfigPath is the attribute a refused scheduler configuration
// is reported at: the first of the two that is set.
func (m *nodePoolModel) schedulerConfigPath() path.Path {
	if m.SchedulerAlgorithm.IsNull() {
		return path.Root("memory_oversubscription")
	}
	return path.Root("scheduler_algorithm")
}
