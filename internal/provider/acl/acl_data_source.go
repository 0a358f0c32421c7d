package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// aclDataSource is a data source of the family: its schema, its
// configuration validators (none for most) and fill, which completes the
// configuration read into M from Nomad.
type aclDataSource[M any] struct {
	shared.DataSourceBase
	schema     func() schema.Schema
	validators []datasource.ConfigValidator
	fill       func(ctx context.Context, data *shared.ProviderData, m *M, diags *diag.Diagnostics)
}

var _ datasource.DataSourceWithConfigValidators = &aclDataSource[aclPolicyModel]{}

// newACLDataSource is the data source berth_<name>.
func newACLDataSource[M any](name string, s func() schema.Schema,
	fill func(ctx context.Context, data *shared.ProviderData, m *M, diags *diag.Diagnostics)) *aclDataSource[M] {
	return &aclDataSource[M]{DataSourceBase: shared.NewDataSourceBase(name), schema: s, fill: fill}
}

func (d *aclDataSource[M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema()
}

func (d *aclDataSource[M]) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return d.validators
}

func (d *aclDataSource[M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readData(ctx, req, resp, func(m *M, diags *diag.Diagnostics) { d.fill(ctx, d.Data, m, diags) })
}

// computedString is a read-only string attribute.
func computedString(doc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: doc}
}

// prefixListSchema is the schema of the data sources that list the
// objects (what: "policies") whose name starts with name_prefix, each an
// entry of the list attribute named what.
func prefixListSchema(doc, what, listDoc string, entry map[string]schema.Attribute) schema.Schema {
	return schema.Schema{
		MarkdownDescription: doc,
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only " + what + " whose name starts with this."},
			what: schema.ListNestedAttribute{Computed: true, MarkdownDescription: listDoc,
				NestedObject: schema.NestedAttributeObject{Attributes: entry}},
		},
	}
}

// listed is the entries of a listing (nil, after one error, when it
// failed), each made by entry; keep leaves items out (nil keeps all).
func listed[S, E any](diags *diag.Diagnostics, what string, items []S, err error, keep func(S) bool, entry func(S) E) []E {
	if err != nil {
		shared.AddNomadError(diags, "Could not list "+what, err)
		return nil
	}
	out := make([]E, 0, len(items))
	for _, s := range items {
		if keep == nil || keep(s) {
			out = append(out, entry(s))
		}
	}
	return out
}

// stringSet is a set of strings for a computed attribute.
func stringSet(ctx context.Context, ss []string, diags *diag.Diagnostics) types.Set {
	v, d := types.SetValueFrom(ctx, types.StringType, ss)
	diags.Append(d...)
	return v
}

// readData answers a data source's Read the same way for the family:
// the configuration is read into M, fill completes it from Nomad, and it
// is recorded unless fill reported an error.
func readData[M any](ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, fill func(m *M, diags *diag.Diagnostics)) {
	var m M
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fill(&m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// found says whether a data source's lookup found its object. A failed
// read is reported under "Could not read the <what>"; a missing object is
// one error at the attribute it was looked up by, missing saying which.
func found[O any](diags *diag.Diagnostics, at path.Path, what string, o *O, err error, missing string) bool {
	switch {
	case err != nil:
		shared.AddNomadError(diags, "Could not read the "+what, err)
		return false
	case o == nil:
		diags.AddAttributeError(at, what+" not found", missing)
		return false
	}
	return true
}
