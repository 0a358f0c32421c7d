// Package provider is the root of berth's Terraform layer: the provider
// itself (its schema and Configure, which builds the Nomad client and the
// shared.ProviderData every resource receives) and the lists of what each
// resource family offers. It holds no resource, and no protocol server:
// internal/server serves this provider (NewStoringData) with its secrets
// masked and the plan and read shortcuts.
//
// The resources live one package per family: instance, job, volume, lease
// (berth_reservation), node (node settings, reservations, pools and the
// node data sources), cluster (scheduler settings and the read-only views),
// variable, namespace and acl, each with its own package doc on file names;
// what every family uses is in shared. A family imports shared and
// nothing else under internal/provider, and no file of the layer (tests
// aside) uses a Nomad API type: make lint checks both (.golangci.yml,
// internal/lint/nomadtypes). The tests here (package provider_test, which
// may import internal/server) are those across families: bad input,
// faults, quickstart, TLS and timeouts; provider_config_test.go is the one
// internal test, of the provider block's settings.
package provider

import (
	"context"
	"os"
	"slices"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/acl"
	"github.com/berthhq/terraform-provider-berth/internal/provider/cluster"
	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
	leasefamily "github.com/berthhq/terraform-provider-berth/internal/provider/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/namespace"
	"github.com/berthhq/terraform-provider-berth/internal/provider/node"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/provider/variable"
	"github.com/berthhq/terraform-provider-berth/internal/provider/volume"
)

var (
	_ provider.Provider                       = &berthProvider{}
	_ provider.ProviderWithConfigValidators   = &berthProvider{}
	_ provider.ProviderWithListResources      = &berthProvider{}
	_ provider.ProviderWithActions            = &berthProvider{}
	_ provider.ProviderWithEphemeralResources = &berthProvider{}
)

// New returns a function that builds the provider, as providerserver wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &berthProvider{version: version} }
}

// NewStoringData builds the provider that, once Configure ran, also stores
// its data in configured: the protocol server (internal/server) masks that
// data's secrets on every RPC and its shortcuts read through its client.
func NewStoringData(version string, configured *atomic.Pointer[shared.ProviderData]) provider.Provider {
	return &berthProvider{version: version, configured: configured}
}

type berthProvider struct {
	version string
	// configured receives the provider's data once Configure ran (nil when
	// built by New), for the protocol server (NewStoringData).
	configured *atomic.Pointer[shared.ProviderData]
}

// providerModel is the provider block.
type providerModel struct {
	Address        types.String `tfsdk:"address"`
	Region         types.String `tfsdk:"region"`
	Namespace      types.String `tfsdk:"namespace"`
	Token          types.String `tfsdk:"token"`
	CAFile         types.String `tfsdk:"ca_file"`
	CAPEM          types.String `tfsdk:"ca_pem"`
	CertFile       types.String `tfsdk:"cert_file"`
	CertPEM        types.String `tfsdk:"cert_pem"`
	KeyFile        types.String `tfsdk:"key_file"`
	KeyPEM         types.String `tfsdk:"key_pem"`
	TLSServerName  types.String `tfsdk:"tls_server_name"`
	SkipVerify     types.Bool   `tfsdk:"skip_verify"`
	Headers        types.Map    `tfsdk:"headers"`
	LedgerNS       types.String `tfsdk:"ledger_namespace"`
	SigningKey     types.String `tfsdk:"signing_key"`
	LeaseDriver    types.String `tfsdk:"lease_driver"`
	HoldDriver     types.String `tfsdk:"hold_driver"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
}

func (p *berthProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "berth"
	resp.Version = p.version
}

func (p *berthProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	str := func(desc string, sensitive bool, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Sensitive: sensitive, MarkdownDescription: desc, Validators: v}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "berth manages capacity on HashiCorp Nomad as code. Every setting falls back to the " +
			"environment variable the Nomad CLI uses; a value in the configuration wins over the environment. " +
			"Configuring the provider never contacts Nomad.",
		Attributes: map[string]schema.Attribute{
			"address": str("URL of a Nomad agent's HTTP API, `http://` or `https://`. Credentials in it "+
				"(`https://user:password@host`) are sent as HTTP basic auth and never shown: messages and logs show the "+
				"address with the password redacted. Environment: `NOMAD_ADDR`. Default: `"+nomadclient.DefaultAddress+"`.",
				false, addressValidator{}),
			"region":    str("Nomad region to send requests to. Environment: `NOMAD_REGION`. Default: the agent's region.", false),
			"namespace": str("Namespace for objects that do not set their own. Environment: `NOMAD_NAMESPACE`. Default: `default`."+shared.NamespaceRuleDoc, false, shared.NamespaceValidator()),
			"token":     str("ACL token (secret ID). Environment: `NOMAD_TOKEN`. Never logged.", true),
			"ca_file": str("Path to a PEM CA certificate that verifies the agent's TLS certificate. Environment: `NOMAD_CACERT`. "+
				"Conflicts with `ca_pem`.", false, stringvalidator.ConflictsWith(path.MatchRoot("ca_pem"))),
			"ca_pem": str("PEM CA certificate that verifies the agent's TLS certificate. Conflicts with `ca_file`.", false),
			"cert_file": str("Path to a PEM client certificate for mutual TLS. Environment: `NOMAD_CLIENT_CERT`. "+
				"Needs `key_file` or `key_pem`; conflicts with `cert_pem`.", false, stringvalidator.ConflictsWith(path.MatchRoot("cert_pem"))),
			"cert_pem": str("PEM client certificate for mutual TLS. Needs `key_file` or `key_pem`; conflicts with `cert_file`.", false),
			"key_file": str("Path to the PEM private key of the client certificate. Environment: `NOMAD_CLIENT_KEY`. "+
				"Conflicts with `key_pem`.", false, stringvalidator.ConflictsWith(path.MatchRoot("key_pem"))),
			"key_pem":         str("PEM private key of the client certificate. Never logged.", true),
			"tls_server_name": str("Server name to verify the agent's certificate against (SNI). Environment: `NOMAD_TLS_SERVER_NAME`.", false),
			"skip_verify": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Skip verification of the agent's TLS certificate. Only for testing. " +
					"Environment: `NOMAD_SKIP_VERIFY` (`true`/`1`).",
			},
			"ledger_namespace": str("Namespace of the Nomad Variables that hold node reservation ledgers "+
				"(`berth/nodes/<node-id>`). Every configuration that reserves on the same nodes must use the same one. Default: `default`."+shared.NamespaceRuleDoc, false, shared.NamespaceValidator()),
			"signing_key": str("ed25519 private key that signs `berth_reservation` leases: PEM (PKCS#8) or the base64 "+
				"32-byte seed. Environment: `BERTH_SIGNING_KEY`. Without one, leases are unsigned. Never logged.", true),
			"lease_driver": str("Task driver of the lease timer task that ends `berth_reservation` leases at expiry: `exec` or "+
				"`raw_exec`, the drivers that run its host command as written (a lease whose timer runs with another driver "+
				"reads `verified = false`). Default: `exec`.", false, stringvalidator.OneOf(lease.TimerDrivers...)),
			"hold_driver": str("Task driver of the hold jobs that keep each `berth_node_reservation`'s unused capacity taken in "+
				"Nomad's scheduler. The hold task runs `"+hold.Command+"`, so any driver that runs a host command works: `exec` "+
				"or `raw_exec` (Docker and other image-based drivers do not). Default: `lease_driver`'s value, else `exec`.", false),
			"headers": schema.MapAttribute{
				Optional:    true,
				Sensitive:   true,
				ElementType: types.StringType,
				MarkdownDescription: "Extra HTTP headers sent with every request, for proxies in front of Nomad. Sensitive: " +
					"values (often an `Authorization` value) are never shown or logged.",
			},
			"request_timeout": str("How long berth waits for Nomad to answer one request, as a duration such as `30s` or "+
				"`2m`, between `1s` and `1h`. A blocking query may take its own wait time plus this. A Nomad that accepts "+
				"connections but never answers then fails the operation with an error naming the address instead of hanging. "+
				"Environment: `BERTH_REQUEST_TIMEOUT`. Default: `"+nomadclient.DefaultRequestTimeout.String()+"`.", false,
				requestTimeoutValidator{}),
		},
	}
}

func (p *berthProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{clientCertKeyValidator{}}
}

func (p *berthProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, diags := resolveConfig(ctx, m, envLookup)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.HoldDriver = m.HoldDriver.ValueString()
	if cfg.HoldDriver == "" {
		cfg.HoldDriver = m.LeaseDriver.ValueString()
	}
	client, err := nomadclient.New(cfg)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Nomad client settings",
			"berth could not build its Nomad client: "+err.Error()+". Check the provider's TLS and address settings.")
		return
	}
	ctx = client.MaskSecrets(ctx)
	tflog.Debug(ctx, "Configured Nomad client", map[string]any{
		"address": client.Address(), "region": cfg.Region, "namespace": cfg.Namespace,
		"token_set": cfg.Token != "", "tls_ca": cfg.CAFile != "" || cfg.CAPEM != "",
		"request_timeout": client.RequestTimeout().String(), "headers": len(cfg.Headers),
	})
	ledgerNS := m.LedgerNS.ValueString()
	if ledgerNS == "" {
		ledgerNS = "default"
	}
	data := &shared.ProviderData{Nomad: client, LedgerNamespace: ledgerNS, LeaseDriver: m.LeaseDriver.ValueString(), Plans: shared.NewPlannedReservations()}
	if data.LeaseDriver == "" {
		data.LeaseDriver = "exec"
	}
	keyText := m.SigningKey.ValueString()
	if m.SigningKey.IsNull() {
		keyText = os.Getenv("BERTH_SIGNING_KEY")
	}
	if keyText != "" {
		key, err := lease.ParseSigningKey(keyText)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("signing_key"), "Invalid signing key",
				"The lease signing key (signing_key or BERTH_SIGNING_KEY) cannot be used: "+err.Error())
			return
		}
		data.SigningKey = key
	}
	if p.configured != nil {
		p.configured.Store(data)
	}
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
	resp.EphemeralResourceData = data
}

// Resources are the managed resources of every family.
// Every resource that has an identity goes under the identity
// interceptor here, the one place that records identities.
func (p *berthProvider) Resources(context.Context) []func() resource.Resource {
	return shared.InterceptIdentity(slices.Concat(
		instance.Resources(),
		job.Resources(),
		volume.Resources(),
		leasefamily.Resources(),
		node.Resources(),
		cluster.Resources(),
		variable.Resources(),
		namespace.Resources(),
		acl.Resources(),
	))
}

// ListResources are what `terraform query` lists (Terraform 1.14+).
func (p *berthProvider) ListResources(context.Context) []func() list.ListResource {
	return slices.Concat(
		instance.ListResources(),
		job.ListResources(),
		volume.ListResources(),
		node.ListResources(),
		cluster.ListResources(),
		variable.ListResources(),
		namespace.ListResources(),
		acl.ListResources(),
	)
}

// Actions are imperative operations run from a plan (Terraform 1.14+).
func (p *berthProvider) Actions(context.Context) []func() action.Action {
	return slices.Concat(
		instance.Actions(),
		job.Actions(),
		leasefamily.Actions(),
	)
}

// DataSources are the data sources of every family.
func (p *berthProvider) DataSources(context.Context) []func() datasource.DataSource {
	return slices.Concat(
		instance.DataSources(),
		job.DataSources(),
		volume.DataSources(),
		leasefamily.DataSources(),
		node.DataSources(),
		cluster.DataSources(),
		variable.DataSources(),
		namespace.DataSources(),
		acl.DataSources(),
	)
}

// EphemeralResources are values Terraform opens for one run and never
// stores: secrets read from Nomad or made for the run.
func (p *berthProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return slices.Concat(
		variable.EphemeralResources(),
		acl.EphemeralResources(),
		node.EphemeralResources(),
	)
}
