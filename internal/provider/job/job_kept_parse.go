package job

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// The cluster parses berth_job's jobspecs; its parse of the jobspec in
// state is kept in private state (jobspec.Keep), so the next refresh of
// an unchanged job, in another provider process, compares without asking
// the cluster to parse again.

// parseKey is the private state key holding the kept parse.
const parseKey = "jobspec_parse"

// restoreParse hands the kept parse of m's jobspec to this process.
func (r *jobResource) restoreParse(ctx context.Context, private shared.PrivateData, m *jobModel) {
	if private == nil || r.Data == nil {
		return
	}
	kept, d := private.GetKey(ctx, parseKey)
	if d.HasError() || len(kept) == 0 {
		return
	}
	var diags diag.Diagnostics
	if s, ok := m.spec(ctx, &diags); ok {
		jobspec.Restore(kept, s, r.Data.Nomad.ParserID(ctx))
	}
}

// keepParse records this process's parse of m's jobspec (none: the key is
// cleared, so no stale parse stays).
func (r *jobResource) keepParse(ctx context.Context, private shared.PrivateData, m *jobModel, diags *diag.Diagnostics) {
	if private == nil || r.Data == nil {
		return
	}
	var kept []byte
	var ignored diag.Diagnostics
	if s, ok := m.spec(ctx, &ignored); ok {
		id := r.Data.Nomad.ParserID(ctx)
		if prior, d := private.GetKey(ctx, parseKey); !d.HasError() && jobspec.KeptFor(prior, s, id) {
			return // still the right one: a refresh of an unchanged job compresses nothing
		}
		kept = jobspec.Keep(s, id)
	}
	diags.Append(private.SetKey(ctx, parseKey, kept)...)
}
