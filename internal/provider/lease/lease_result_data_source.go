package lease

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ datasource.DataSource              = &leaseResultDataSource{}
	_ datasource.DataSourceWithConfigure = &leaseResultDataSource{}
)

// NewLeaseResultDataSource builds the berth_lease_result data source.
func NewLeaseResultDataSource() datasource.DataSource {
	return &leaseResultDataSource{DataSourceBase: shared.NewDataSourceBase("lease_result"), now: time.Now}
}

type leaseResultDataSource struct {
	shared.DataSourceBase
	// now is the clock the end of the lease is judged by; tests replace it.
	now func() time.Time
}

type leaseResultDataModel struct {
	LeaseID      types.String `tfsdk:"lease_id"`
	Signature    types.String `tfsdk:"signature"`
	Valid        types.Bool   `tfsdk:"valid"`
	Problem      types.String `tfsdk:"problem"`
	AllocationID types.String `tfsdk:"allocation_id"`
	IssuedAt     types.String `tfsdk:"issued_at"`
}

func (d *leaseResultDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Checks a lease result's signature (`berth_reservation`'s `result.signature`) against the key " +
			"set of the cluster's keyring (Nomad's `/.well-known/jwks.json`, read at each read), and that it belongs to the " +
			"lease in Nomad now: whether Nomad itself vouches that it ran this lease, and which allocation answered. A " +
			"signature that does not verify is not an error: `valid` is `false` and `problem` says why, so a `check` or a " +
			"`precondition` can decide.",
		Attributes: map[string]schema.Attribute{
			"lease_id": schema.StringAttribute{Required: true,
				Validators:          []validator.String{stringvalidator.RegexMatches(leaseIDPattern, "must be <namespace>/<name>")},
				MarkdownDescription: "The lease the result must be of, `<namespace>/<name>` (`berth_reservation`'s `id`)."},
			"signature": schema.StringAttribute{Required: true,
				MarkdownDescription: "The signature to check, `result.signature`."},
			"valid": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether one of the cluster's keys signed it, for a lease result, of this lease's timer, " +
					"issued to an allocation Nomad still has that ran the version of the lease in Nomad now, and whether that " +
					"version's signature verifies against the provider's `signing_key`. A result of an earlier lease of the same " +
					"name (before a renewal or replacement), of a lease changed outside berth or brought back to an earlier signed " +
					"version (a later one is in the job's versions in Nomad), of a lease Nomad still runs after its end (its timer " +
					"paused), or of an allocation Nomad has garbage-collected is not valid; without a provider `signing_key` no " +
					"result is."},
			"problem": schema.StringAttribute{Computed: true,
				MarkdownDescription: "Why it is not valid; empty when it is."},
			"allocation_id": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The allocation the signature names; empty when not valid."},
			"issued_at": schema.StringAttribute{Computed: true,
				MarkdownDescription: "When Nomad issued it, RFC 3339; empty when not valid."},
		},
	}
}

func (d *leaseResultDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m leaseResultDataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	keys, err := d.Data.Nomad.ClusterKeySet(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the cluster's key set", err)
		return
	}
	ns, name, _ := strings.Cut(m.LeaseID.ValueString(), "/")
	claims, err := lease.VerifyResult(m.Signature.ValueString(), keys, ns, name)
	if err == nil {
		if err = d.boundToLease(ctx, ns, name, claims.AllocationID, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	m.Valid, m.Problem = types.BoolValue(err == nil), types.StringValue("")
	m.AllocationID, m.IssuedAt = types.StringValue(""), types.StringValue("")
	if err != nil {
		m.Problem = types.StringValue(err.Error())
	} else {
		m.AllocationID = types.StringValue(claims.AllocationID)
		if !claims.IssuedAt.IsZero() {
			m.IssuedAt = types.StringValue(claims.IssuedAt.Format(time.RFC3339))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// boundToLease says why a result the cluster signed for allocation
// allocID is not a result of the lease in Nomad now (nil when it is): the
// allocation must still be in Nomad, the lease version it ran must verify
// against the provider's signing key, and be the version in Nomad now (a
// renewal or replacement keeps the name; a token of the earlier lease must
// not pass for the current one's). Failing to ask Nomad is an error in
// diags, not a reason.
func (d *leaseResultDataSource) boundToLease(ctx context.Context, ns, name, allocID string, diags *diag.Diagnostics) error {
	trust := lease.Trust{Signed: true, Recorded: true}
	if key := d.Data.SigningKey; key != nil {
		trust.Key = lease.PublicKey(key)
	}
	if err := lease.ResultTrusted(trust); err != nil {
		return err
	}
	ranJob, err := d.Data.Nomad.AllocationJob(ctx, ns, allocID)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the allocation the result names", err)
		return nil
	}
	if ranJob == nil {
		return fmt.Errorf("allocation %s is no longer in Nomad (garbage-collected), so nothing ties this result to the lease now", allocID)
	}
	if ranJob.ID() != name {
		return fmt.Errorf("allocation %s ran job %q, not lease %q", allocID, ranJob.ID(), name)
	}
	ran, err := ranJob.Lease()
	if err != nil {
		return fmt.Errorf("allocation %s ran a job that is not a berth lease: %w", allocID, err)
	}
	curJob, err := d.Data.Nomad.GetJob(ctx, ns, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease", err)
		return nil
	}
	if curJob == nil {
		return fmt.Errorf("lease %s/%s is not in Nomad now", ns, name)
	}
	current, err := curJob.Lease()
	if err != nil {
		return fmt.Errorf("job %s/%s in Nomad is no longer a berth lease: %w", ns, name, err)
	}
	if err := lease.CheckResultLease(ran, current, trust); err != nil {
		return err
	}
	return d.currentHolds(ctx, current, trust, diags)
}

// currentHolds says why current, the lease in Nomad now, is not one a
// result can vouch for although its signature verifies: a later signed
// version is in the job's history (a revert), or it did not end.
func (d *leaseResultDataSource) currentHolds(ctx context.Context, current lease.Lease, trust lease.Trust, diags *diag.Diagnostics) error {
	ns, name := current.Namespace, current.Name
	versions, err := d.Data.Nomad.LeaseVersions(ctx, ns, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease's versions", err)
		return nil
	}
	trust.Newest = lease.NewestSigned(versions, trust)
	if status, problems := lease.Check(current, trust); status != lease.Verified {
		return fmt.Errorf("lease %q in Nomad does not verify now: %s", name, strings.Join(problems, "; "))
	}
	allocs, err := d.Data.Nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease's allocations", err)
		return nil
	}
	now := time.Now
	if d.now != nil {
		now = d.now
	}
	if over := lease.Overruns(current, allocs.LeaseRuns(), now()); len(over) > 0 {
		return fmt.Errorf("lease %q has not ended: %s", name, strings.Join(over, "; "))
	}
	return nil
}
