package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

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
