package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// nodeSettingsModel is berth_node_settings' state.
type nodeSettingsModel struct {
	ID       types.String    `tfsdk:"id"`
	NodeID   types.String    `tfsdk:"node_id"`
	NodeName types.String    `tfsdk:"node_name"`
	Eligible types.Bool      `tfsdk:"eligible"`
	Drain    *nodeDrainModel `tfsdk:"drain"`
	Meta     types.Map       `tfsdk:"meta"`
	NodePool types.String    `tfsdk:"node_pool"`
	Status   types.String    `tfsdk:"status"`
	Timeouts timeouts.Value  `tfsdk:"timeouts"`
}

type nodeDrainModel struct {
	Deadline         timetypes.GoDuration `tfsdk:"deadline"`
	IgnoreSystemJobs types.Bool           `tfsdk:"ignore_system_jobs"`
	Force            types.Bool           `tfsdk:"force"`
}

// defaultDrainDeadline is `nomad node drain`'s.
const defaultDrainDeadline = "1h"

// spec is what the model asks berth to manage; eligibility only where
// configured (cfg), since state always holds the node's.
func (m *nodeSettingsModel) spec(ctx context.Context, configuredEligible types.Bool, diags *diag.Diagnostics) workflow.NodeSettingsSpec {
	var s workflow.NodeSettingsSpec
	if !configuredEligible.IsNull() && !configuredEligible.IsUnknown() {
		v := configuredEligible.ValueBool()
		s.Eligible = &v
	}
	if m.Drain != nil {
		d := nomadclient.DrainSpec{IgnoreSystemJobs: m.Drain.IgnoreSystemJobs.ValueBool(), Force: m.Drain.Force.ValueBool()}
		deadline := m.Drain.Deadline
		if deadline.IsNull() {
			deadline = timetypes.NewGoDurationValueFromStringMust(defaultDrainDeadline)
		}
		var dd diag.Diagnostics
		d.Deadline, dd = deadline.ValueGoDuration()
		for _, e := range dd {
			diags.AddAttributeError(path.Root("drain").AtName("deadline"), e.Summary(), e.Detail())
		}
		s.Drain = &d
	}
	if !m.Meta.IsNull() && !m.Meta.IsUnknown() {
		diags.Append(m.Meta.ElementsAs(ctx, &s.Meta, false)...)
	}
	return s
}

// record fills what Nomad says of the node into m: which node, its pool,
// status and eligibility, the keys berth owns as the node has them, and
// no drain when the node was made eligible again behind berth's back.
func (m *nodeSettingsModel) record(ctx context.Context, n *nomadclient.NodeSettings, dynamic map[string]string, diags *diag.Diagnostics) {
	m.ID, m.NodeID, m.NodeName = types.StringValue(n.ID), types.StringValue(n.ID), types.StringValue(n.Name)
	m.NodePool, m.Status, m.Eligible = types.StringValue(n.NodePool), types.StringValue(n.Status), types.BoolValue(n.Eligible)
	if m.Drain != nil && n.Drain == nil && n.Eligible {
		m.Drain = nil
	}
	if m.Meta.IsNull() || m.Meta.IsUnknown() {
		return
	}
	owned := map[string]string{}
	for k := range m.Meta.Elements() {
		if v, ok := dynamic[k]; ok {
			owned[k] = v
		}
	}
	m.Meta = shared.KeepEmptyMap(m.Meta, shared.MapOrNull(ctx, owned, diags))
}

// foundKey keeps, in private state, how berth found the node.
const foundKey = "found"

func readFound(ctx context.Context, p shared.PrivateData, diags *diag.Diagnostics) *workflow.NodeFound {
	return shared.ReadPrivateJSON[workflow.NodeFound](ctx, p, foundKey, "how berth found the node", "", diags)
}

func writeFound(ctx context.Context, p shared.PrivateData, f workflow.NodeFound, diags *diag.Diagnostics) {
	shared.WritePrivateJSON(ctx, p, foundKey, "how berth found the node", f, diags)
}
