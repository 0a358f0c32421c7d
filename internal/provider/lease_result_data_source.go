package provider

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

var (
	_ datasource.DataSource              = &leaseResultDataSource{}
	_ datasource.DataSourceWithConfigure = &leaseResultDataSource{}
)

// NewLeaseResultDataSource builds the berth_lease_result data source.
func NewLeaseResultDataSource() datasource.DataSource { return &leaseResultDataSource{} }

type leaseResultDataSource struct{ data *ProviderData }

type leaseResultDataModel struct {
	LeaseID      types.String `tfsdk:"lease_id"`
	Signature    types.String `tfsdk:"signature"`
	Valid        types.Bool   `tfsdk:"valid"`
	Problem      types.String `tfsdk:"problem"`
	AllocationID types.String `tfsdk:"allocation_id"`
	IssuedAt     types.String `tfsdk:"issued_at"`
}

func (d *leaseResultDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_lease_result"
}

func (d *leaseResultDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Checks a lease result's signature (`berth_reservation`'s `result.signature`) against the key " +
			"set of the cluster's keyring (Nomad's `/.well-known/jwks.json`, read at each read): whether Nomad itself vouches " +
			"that it ran the lease, and which allocation answered. A signature that does not verify is not an error: " +
			"`valid` is `false` and `problem` says why, so a `check` or a `precondition` can decide.",
		Attributes: map[string]schema.Attribute{
			"lease_id": schema.StringAttribute{Required: true,
				Validators:          []validator.String{stringvalidator.RegexMatches(leaseIDPattern, "must be <namespace>/<name>")},
				MarkdownDescription: "The lease the result must be of, `<namespace>/<name>` (`berth_reservation`'s `id`)."},
			"signature": schema.StringAttribute{Required: true,
				MarkdownDescription: "The signature to check, `result.signature`."},
			"valid": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether one of the cluster's keys signed it, for a lease result, of this lease's timer."},
			"problem": schema.StringAttribute{Computed: true,
				MarkdownDescription: "Why it is not valid; empty when it is."},
			"allocation_id": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The allocation the signature names; empty when not valid."},
			"issued_at": schema.StringAttribute{Computed: true,
				MarkdownDescription: "When Nomad issued it, RFC 3339; empty when not valid."},
		},
	}
}

func (d *leaseResultDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *leaseResultDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m leaseResultDataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	keys, err := d.data.Nomad.ClusterKeySet(ctx)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the cluster's key set", err)
		return
	}
	ns, name, _ := strings.Cut(m.LeaseID.ValueString(), "/")
	claims, err := lease.VerifyResult(m.Signature.ValueString(), keys, ns, name)
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
