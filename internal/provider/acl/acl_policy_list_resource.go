package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclPolicyListResource{}

// NewACLPolicyListResource builds the berth_acl_policy list resource for
// `terraform query` (Terraform 1.14+).
func NewACLPolicyListResource() list.ListResource {
	return &aclPolicyListResource{NewACLPolicyResource().(*aclPolicyResource)}
}

// It embeds the resource: its name, provider data, identity and model.
type aclPolicyListResource struct{ *aclPolicyResource }

// namePrefixListModel is the configuration of the family's list blocks.
type namePrefixListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func namePrefixListSchema(what string) listschema.Schema {
	return listschema.Schema{
		MarkdownDescription: what + ", whoever created them, for `terraform query` (Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only those whose name starts with this."},
		},
	}
}

func (r *aclPolicyListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL policies")
}

func (r *aclPolicyListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[namePrefixListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	stubs, err := r.Data.Nomad.ListACLPolicies(ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list ACL policies", err)
		return
	}
	stream.Results = shared.ListStream(stubs, req.Limit, func(s aclpolicy.PolicyStub) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.Name
		aclPolicyIdentity.Record(ctx, result.Identity, s.Name, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		p, err := r.Data.Nomad.GetACLPolicy(ctx, s.Name)
		if err != nil || p == nil {
			if err == nil {
				return list.ListResult{}, false // deleted since it was listed
			}
			shared.AddNomadError(&result.Diagnostics, "Could not read ACL policy "+s.Name, err)
			return result, true
		}
		var m aclPolicyModel
		m.Description = types.StringNull()
		m.fromPolicy(p)
		result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		return result, true
	})
}
