// What a write carries over from the lease before it: the newest signing
// date of a replaced generation, the allocation a reference is bound to.

package lease

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A replacement destroys the lease and creates it again, and the create
// sees neither the old state nor its private record (Terraform gives a
// create none), while the destroy purged the job's versions. Signing
// dates must still only go forward across it (a replayed earlier
// generation must read older than the one after it, whatever the signing
// machine's clock says), so the destroy leaves the newest signing it knew
// here, in the provider process that runs both, for the create to date
// after (lease.NextSignedAt).
var replaced sync.Map // "namespace/name" -> time.Time

// noteReplaced remembers the newest signing of the lease about to be
// destroyed: the record's, or a later one among the job's versions that
// verifies. Reading the versions is best effort: a destroy must not fail
// on it.
func (r *leaseResource) noteReplaced(ctx context.Context, state *leaseModel, rec leaseRecord) {
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	newest := rec.last().SignedAt
	if t := r.trust(state, rec); t.Key != nil || t.Signer != "" {
		versions, err := r.Data.Nomad.LeaseVersions(ctx, ns, name)
		if err != nil {
			tflog.Warn(ctx, "Could not read the lease's versions before destroying it", map[string]any{"error": err.Error()})
		}
		if s := lease.NewestSigned(versions, t); s.SignedAt.After(newest) {
			newest = s.SignedAt
		}
	}
	if !newest.IsZero() {
		replaced.Store(ns+"/"+name, newest)
	}
}

// replacedSigning is the newest signing of a lease of this name destroyed
// in this process (zero when none), taken once.
func replacedSigning(ns, name string) time.Time {
	if v, ok := replaced.LoadAndDelete(ns + "/" + name); ok {
		t, _ := v.(time.Time)
		return t
	}
	return time.Time{}
}

// referenceAlloc is the allocation the lease in Nomad binds its reference
// to, for an update that signs it again.
func (r *leaseResource) referenceAlloc(ctx context.Context, l lease.Lease, diags *diag.Diagnostics) string {
	job, err := r.Data.Nomad.GetJob(ctx, l.Namespace, l.Name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease", err)
		return ""
	}
	if job == nil {
		return "" // the update reports the job gone
	}
	live, err := job.Lease()
	if err != nil {
		return "" // the update reports the change
	}
	return live.ReferenceAlloc
}
