package job

import (
	"context"
	"encoding/json"

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
	if private == nil || r.data == nil {
		return
	}
	kept, d := private.GetKey(ctx, parseKey)
	if d.HasError() || len(kept) == 0 {
		return
	}
	var diags diag.Diagnostics
	if s, ok := m.spec(ctx, &diags); ok {
		jobspec.Restore(kept, s, r.data.Nomad.ParserID(ctx))
	}
}

// keepParse records this process's parse of m's jobspec (none: the key is
// cleared, so no stale parse stays).
func (r *jobResource) keepParse(ctx context.Context, private shared.PrivateData, m *jobModel, diags *diag.Diagnostics) {
	if private == nil || r.data == nil {
		return
	}
	var kept []byte
	var ignored diag.Diagnostics
	if s, ok := m.spec(ctx, &ignored); ok {
		kept = jobspec.Keep(s, r.data.Nomad.ParserID(ctx))
	}
	diags.Append(private.SetKey(ctx, parseKey, kept)...)
}

// RestorePlannedParse hands this process the parse the plan of a new
// berth_job kept in its planned private state (raw: the protocol's JSON
// object of base64 values). The framework gives Create no private state,
// so the protocol server calls this before a create's apply; without it
// the apply would ask the cluster to parse the jobspec again.
func RestorePlannedParse(raw []byte) {
	if len(raw) == 0 {
		return
	}
	var keys map[string][]byte
	if json.Unmarshal(raw, &keys) != nil {
		return
	}
	jobspec.RestoreKept(keys[parseKey])
}
