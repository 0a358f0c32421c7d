package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ datasource.DataSourceWithConfigure      = &jobspecDataSource{}
	_ datasource.DataSourceWithValidateConfig = &jobspecDataSource{}
)

// NewJobspecDataSource builds the berth_jobspec data source.
func NewJobspecDataSource() datasource.DataSource {
	return &jobspecDataSource{shared.NewDataSourceBase("jobspec")}
}

// jobspecDataSource is hashicorp/nomad's nomad_job_parser with berth's
// parse: the cluster's own parser (POST /v1/jobs/parse), so it reads every
// block that cluster knows, after the offline checks berth_job makes.
type jobspecDataSource struct{ shared.DataSourceBase }

type jobspecDataModel struct {
	HCL          types.String `tfsdk:"hcl"`
	Variables    types.Map    `tfsdk:"variables"`
	Canonicalize types.Bool   `tfsdk:"canonicalize"`
	ID           types.String `tfsdk:"id"`
	JSON         types.String `tfsdk:"json"`
}

func (d *jobspecDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A jobspec read by the cluster's own parser (`POST /v1/jobs/parse`, what `nomad job run` " +
			"asks), as hashicorp/nomad's `nomad_job_parser` does: the job as Nomad's JSON, every block that cluster " +
			"knows included. It registers nothing. A jobspec the parser refuses is an error at `hcl` naming its line; " +
			"its syntax and `variables` are checked at `terraform validate`, without a cluster. The parse runs in the " +
			"provider's namespace and needs `parse-job` (or `submit-job`) there. HCL2 only: a JSON job is already " +
			"what `json` holds.",
		Attributes: map[string]schema.Attribute{
			"hcl": schema.StringAttribute{Required: true,
				MarkdownDescription: "The jobspec, HCL2: a `job` block, with `variable` blocks if it has any."},
			"variables": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Values of the jobspec's HCL2 `variable` blocks, as `nomad job run -var` gives them " +
					"(and as `berth_job`'s `variables`). They are kept in state: put secrets in Nomad Variables instead."},
			"canonicalize": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Whether the cluster fills in its defaults for what the jobspec leaves unset (its " +
					"parse API's `Canonicalize`: a group's `count`, a task's resources, the update and restart policies, " +
					"...). Default `false`: the job as the jobspec writes it."},
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The job's ID (the `job` block's label)."},
			"json": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The job as Nomad's JSON, as the cluster's parser answered it: the form `berth_job`'s " +
					"`jobspec` takes with `format = \"json\"`, and what `jsondecode` reads."},
		},
	}
}

// spec is the jobspec of m; ok is false while a value is unknown.
func (m jobspecDataModel) spec(ctx context.Context, diags *diag.Diagnostics) (jobspec.Spec, bool) {
	if m.HCL.IsUnknown() || m.Variables.IsUnknown() {
		return jobspec.Spec{}, false
	}
	var vars map[string]string
	if !m.Variables.IsNull() {
		for _, v := range m.Variables.Elements() {
			if v.IsUnknown() {
				return jobspec.Spec{}, false
			}
		}
		diags.Append(m.Variables.ElementsAs(ctx, &vars, false)...)
	}
	return jobspec.Spec{Source: m.HCL.ValueString(), Format: jobspec.FormatHCL2, Variables: vars}, !diags.HasError()
}

// ValidateConfig checks the jobspec's syntax and variables without a
// cluster (as berth_job's), so such a mistake shows at `terraform
// validate`; the cluster's parser reads the rest at Read.
func (d *jobspecDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m jobspecDataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if s, ok := m.spec(ctx, &resp.Diagnostics); ok {
		addHCLError(&resp.Diagnostics, jobspec.CheckOffline(s))
	}
}

func (d *jobspecDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobspecDataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	s, ok := m.spec(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	out, err := d.Data.Nomad.ParseJobspecJSON(ctx, s, m.Canonicalize.ValueBool())
	if err != nil {
		addHCLError(&resp.Diagnostics, err)
		return
	}
	var head struct{ ID string }
	if err := json.Unmarshal([]byte(out), &head); err != nil || head.ID == "" {
		resp.Diagnostics.AddAttributeError(path.Root("hcl"), "Invalid jobspec",
			"The cluster's parser returned a job without an ID. Give the `job` block a label.")
		return
	}
	m.ID, m.JSON = types.StringValue(head.ID), types.StringValue(out)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// addHCLError reports a jobspec refused (berth's offline checks or the
// cluster's parser, at its line) at `hcl`, or a parse that could not be
// asked.
func addHCLError(diags *diag.Diagnostics, err error) {
	if err == nil {
		return
	}
	var pe *jobspec.ParseError
	if !errors.As(err, &pe) {
		shared.AddNomadError(diags, "Could not parse the jobspec", err)
		return
	}
	diags.AddAttributeError(path.Root("hcl"), "Invalid jobspec",
		fmt.Sprintf("%s. Fix the jobspec or `variables` (`nomad job validate` against this cluster reads them the same way).",
			strings.TrimSuffix(err.Error(), ".")))
}
