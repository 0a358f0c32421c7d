package variable

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ ephemeral.EphemeralResourceWithConfigure = &variableEphemeral{}

// NewVariableEphemeral builds the ephemeral berth_variable: a Variable's
// items for one Terraform run, never written to plan or state.
func NewVariableEphemeral() ephemeral.EphemeralResource {
	return &variableEphemeral{shared.NewEphemeralBase("variable")}
}

type variableEphemeral struct{ shared.EphemeralBase }

type variableEphemeralModel struct {
	Path        types.String `tfsdk:"path"`
	Namespace   types.String `tfsdk:"namespace"`
	Items       types.Map    `tfsdk:"items"`
	ModifyIndex types.Int64  `tfsdk:"modify_index"`
}

func (e *variableEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a Nomad Variable's items for one Terraform run (Terraform 1.10 or later) without " +
			"storing them: use them where Terraform accepts ephemeral values (write-only attributes such as " +
			"`berth_variable`'s `items_wo` or `berth_job`'s `variables_wo`, provider blocks, other ephemeral " +
			"resources). They never reach the plan or state.",
		Attributes: map[string]schema.Attribute{
			"path": schema.StringAttribute{Required: true, Validators: []validator.String{pathValidator()},
				MarkdownDescription: "Path of the Variable."},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, Validators: []validator.String{shared.NamespaceValidator()},
				MarkdownDescription: "Namespace of the Variable. Default `default`."},
			"items": schema.MapAttribute{Computed: true, Sensitive: true, ElementType: types.StringType,
				MarkdownDescription: "Every item of the Variable, plain and secret alike."},
			"modify_index": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "The Variable's modify index in Nomad when it was read."},
		},
	}
}

func (e *variableEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m variableEphemeralModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	v, ns := readVariable(ctx, e.Data, m.Path, m.Namespace, &resp.Diagnostics)
	if v == nil {
		return
	}
	m.Namespace = types.StringValue(ns)
	items, d := types.MapValueFrom(ctx, types.StringType, v.Items)
	resp.Diagnostics.Append(d...)
	m.Items, m.ModifyIndex = items, types.Int64Value(int64(v.ModifyIndex))
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
