package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
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
