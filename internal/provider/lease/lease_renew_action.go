package lease

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewLeaseRenewAction builds berth_reservation_renew: the lease starts over
// for its full duration, signed again, from a plan (Terraform 1.14+).
func NewLeaseRenewAction() action.Action {
	return &shared.JobAction{ActionBase: shared.NewActionBase("reservation_renew"), Thing: "lease",
		Doc: "Renews a `berth_reservation` (lease): it starts over for its full `duration` from now, " +
			"`created_at` becomes now and, with a provider `signing_key`, the lease is signed again (Terraform 1.14 and " +
			"later). Like a change of `duration`, this registers the lease job again, so Nomad replaces its allocation: " +
			"the workload restarts. The lease resource's next refresh reads the new `created_at`, `expires_at` and " +
			"signature from Nomad and, since the signature verifies, plans no change; a lease the provider's key cannot " +
			"verify (changed outside berth, or signed by another key) is refused rather than renewed. Without Terraform " +
			"1.14, a lease is renewed by replacing it (`renew = true` after expiry, or `terraform apply -replace`).",
		TimeoutDoc: "How long the renewal may take, including the workload starting again",
		Run:        renewLease,
	}
}

func renewLease(ctx context.Context, data *shared.ProviderData, t shared.JobActionTarget, _ action.InvokeRequest, resp *action.InvokeResponse) {
	ns, name, job := t.Ns, t.Name, t.Job
	l, err := job.Lease()
	if err != nil {
		resp.Diagnostics.AddError("Not a berth lease", fmt.Sprintf("Job %q in namespace %q is not a berth lease: %v", name, ns, err))
		return
	}
	// The job's versions: a lease brought back to an earlier version is
	// not renewed, and the renewal is dated after every version.
	var newest lease.Signing
	if key := data.SigningKey; key != nil && l.Signature != "" {
		versions, err := data.Nomad.LeaseVersions(ctx, ns, name)
		if err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not read the lease's versions", err)
			return
		}
		newest = lease.NewestSigned(versions, lease.Trust{Key: lease.PublicKey(key)})
	}
	if !renewTrusted(data, l, newest, resp) {
		return
	}
	at := time.Now().UTC()
	l.CreatedAt = at.Truncate(time.Second)
	prev := l.SignedAt
	if newest.SignedAt.After(prev) {
		prev = newest.SignedAt
	}
	if l = (&leaseResource{ResourceBase: shared.ResourceBase{Data: data}}).sign(l, prev, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// Check-and-set on the job read above: a change made since then (an
	// apply, another renewal) fails this one instead of being overwritten.
	res, err := data.Nomad.RegisterLease(ctx, l, data.LeaseDriver, at, job.ModifyIndex())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, fmt.Sprintf("Could not renew lease %s/%s", ns, name), err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("lease %s/%s renewed until %s; waiting for its workload",
		ns, name, l.ExpiresAt().Format(time.RFC3339))})
	if err := data.Nomad.WaitTaskRunning(ctx, ns, name, res.EvalID, lease.WorkloadTask); err != nil {
		shared.AddRolloutError(&resp.Diagnostics, "The renewed lease's workload did not start", name, err)
		return
	}
	tflog.Info(ctx, "Renewed lease", map[string]any{"job": name, "namespace": ns, "expires_at": l.ExpiresAt().Format(time.RFC3339)})
}

// renewTrusted refuses to renew a lease the provider could not have signed:
// renewing re-signs it, which would launder a change made outside berth.
func renewTrusted(data *shared.ProviderData, l lease.Lease, newest lease.Signing, resp *action.InvokeResponse) bool {
	t := lease.Trust{Newest: newest}
	if key := data.SigningKey; key != nil {
		t.Key = lease.PublicKey(key)
	}
	if l.Signature != "" && t.Key == nil {
		resp.Diagnostics.AddError("Lease is signed, and the provider has no signing_key",
			fmt.Sprintf("Lease %s/%s is signed; renewing it means signing it again. Configure the provider's signing_key "+
				"(or BERTH_SIGNING_KEY) with the key it was signed with.", l.Namespace, l.Name))
		return false
	}
	if status, problems := lease.Check(l, t); status == lease.Tampered {
		resp.Diagnostics.AddError("Lease fails verification; not renewed",
			fmt.Sprintf("Lease %s/%s does not verify against the provider's signing key:\n  - %s\n"+
				"It was changed outside berth or signed by another key. The lease resource's next apply replaces it.",
				l.Namespace, l.Name, strings.Join(problems, "\n  - ")))
		return false
	}
	return true
}
