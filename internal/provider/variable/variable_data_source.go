package variable

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// NewVariableDataSource builds the berth_variable data source: a
// Variable's metadata and keys, never its values (read those with the
// ephemeral berth_variable).
func NewVariableDataSource() datasource.DataSource {
	return shared.NewDataSource("variable", variableDataSourceSchema, readVariableMetadata)
}

type variableDataModel struct {
	ID          types.String `tfsdk:"id"`
	Path        types.String `tfsdk:"path"`
	Namespace   types.String `tfsdk:"namespace"`
	Keys        types.List   `tfsdk:"keys"`
	CreateIndex types.Int64  `tfsdk:"create_index"`
	ModifyIndex types.Int64  `tfsdk:"modify_index"`
	CreateTime  types.String `tfsdk:"create_time"`
	ModifyTime  types.String `tfsdk:"modify_time"`
}

func variableDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad Variable's metadata: its keys, indexes and times, never its values, which would " +
			"be stored in state. Read the values for one run with the ephemeral `berth_variable`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<path>`."},
			"path": schema.StringAttribute{Required: true, Validators: []validator.String{pathValidator()},
				MarkdownDescription: "Path of the Variable."},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, Validators: []validator.String{shared.NamespaceValidator()},
				MarkdownDescription: "Namespace of the Variable. Default `default`."},
			"keys": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The item keys, sorted."},
			"create_index": schema.Int64Attribute{Computed: true, MarkdownDescription: "Raft index of the Variable's creation."},
			"modify_index": schema.Int64Attribute{Computed: true, MarkdownDescription: "Raft index of its last write."},
			"create_time":  schema.StringAttribute{Computed: true, MarkdownDescription: "When it was created (RFC 3339, UTC)."},
			"modify_time":  schema.StringAttribute{Computed: true, MarkdownDescription: "When it was last written (RFC 3339, UTC)."},
		},
	}
}

func readVariableMetadata(ctx context.Context, data *shared.ProviderData, m *variableDataModel, diags *diag.Diagnostics) {
	v, ns := readVariable(ctx, data, m.Path, m.Namespace, diags)
	if v == nil {
		return
	}
	m.ID, m.Namespace = types.StringValue(refID(variable.Ref{Namespace: ns, Path: v.Path})), types.StringValue(ns)
	m.Keys = shared.ListOf(ctx, v.Keys(), diags)
	m.CreateIndex, m.ModifyIndex = types.Int64Value(int64(v.CreateIndex)), types.Int64Value(int64(v.ModifyIndex))
	m.CreateTime = types.StringValue(v.CreateTime.UTC().Format(time.RFC3339))
	m.ModifyTime = types.StringValue(v.ModifyTime.UTC().Format(time.RFC3339))
}

// readVariable is the Variable at path in namespace (the default namespace
// when none is set), and that namespace, for the data source and the
// ephemeral resource alike; nil when it could not be read or is missing
// (diags say which).
func readVariable(ctx context.Context, data *shared.ProviderData, path, namespace types.String, diags *diag.Diagnostics) (*variable.Variable, string) {
	ns := namespace.ValueString()
	if ns == "" {
		ns = variable.DefaultNamespace
	}
	v, err := data.Nomad.GetVariable(ctx, ns, path.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not read the Variable", err)
		return nil, ns
	}
	if v == nil {
		diags.AddError("Variable not found", fmt.Sprintf("Nomad has no Variable at %s in namespace %q. Check the "+
			"path and namespace (`nomad var list -namespace %s`), and that the token may read it.", path.ValueString(), ns, ns))
	}
	return v, ns
}
