package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Every berth resource is identified by two of its string attributes, and
// its import ID is those two joined by "/" (`<namespace>/<name>`,
// `<node_id>/<name>`, …). resourceIdentity describes that pair once, and
// gives the resource its identity schema (Terraform 1.12+), the import ID
// for an import by identity, and the identity to record after every
// create, read and update. Terraform versions without identity ignore it.
type ResourceIdentity [2]identityAttr

// identityAttr is one identity attribute; its name is also the name of the
// state attribute it mirrors.
type identityAttr struct {
	Name, Doc string
	// Optional: an import block may leave it out (the provider's
	// namespace is used, as with an import ID without "/").
	Optional bool
}

func (ri ResourceIdentity) Schema() identityschema.Schema {
	attrs := make(map[string]identityschema.Attribute, len(ri))
	for _, a := range ri {
		attrs[a.Name] = identityschema.StringAttribute{
			RequiredForImport: !a.Optional, OptionalForImport: a.Optional, Description: a.Doc,
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// ImportID is the import ID given, or, for an import by identity, the
// identity's values as an import ID: "<first>/<second>", or "<second>"
// when the optional first is left out.
func (ri ResourceIdentity) ImportID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var vals [2]types.String
	for i, a := range ri {
		diags.Append(req.Identity.GetAttribute(ctx, path.Root(a.Name), &vals[i])...)
	}
	if diags.HasError() {
		return ""
	}
	if vals[0].ValueString() == "" {
		return vals[1].ValueString()
	}
	return vals[0].ValueString() + "/" + vals[1].ValueString()
}

// FromState records the identity from the two attributes in st: deferred
// at the start of Create, Read and Update, so whichever way the method
// ends, a resource in state has its identity (state written before berth
// had identities gets it at the next refresh). When Read removed the
// resource (st is null), the framework still wants an identity: it is
// taken from prior, the state Read was given. Values not known yet record
// none.
func (ri ResourceIdentity) FromState(ctx context.Context, st, prior *tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if id == nil || st == nil {
		return
	}
	removed := st.Raw.IsNull()
	if removed {
		if prior == nil || prior.Raw.IsNull() {
			return
		}
		st = prior
	}
	var vals [2]types.String
	for i, a := range ri {
		if d := st.GetAttribute(ctx, path.Root(a.Name), &vals[i]); d.HasError() {
			return
		}
	}
	if vals[0].IsUnknown() || vals[1].IsUnknown() || vals[1].ValueString() == "" {
		if removed {
			// The framework wants an identity from every Read, even one
			// that removes the resource (Terraform drops both): a volume
			// whose create lost its reply has no ID to name it by.
			ri.Record(ctx, id, vals[0].ValueString(), vals[1].ValueString(), diags)
		}
		return
	}
	ri.Record(ctx, id, vals[0].ValueString(), vals[1].ValueString(), diags)
}

// Record sets the identity to the two values (state's, in ri's order).
// It does nothing when Terraform sent no identity to fill.
func (ri ResourceIdentity) Record(ctx context.Context, id *tfsdk.ResourceIdentity, first, second string, diags *diag.Diagnostics) {
	if id == nil {
		return
	}
	obj, d := types.ObjectValue(
		map[string]attr.Type{ri[0].Name: types.StringType, ri[1].Name: types.StringType},
		map[string]attr.Value{ri[0].Name: types.StringValue(first), ri[1].Name: types.StringValue(second)})
	diags.Append(d...)
	if !d.HasError() {
		diags.Append(id.Set(ctx, obj)...)
	}
}

// SingleIdentity identifies a resource by one string attribute alone (a
// node pool by its name, which is unique in the region): its import ID is
// that attribute's value.
type SingleIdentity identityAttr

func (si SingleIdentity) Schema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		si.Name: identityschema.StringAttribute{RequiredForImport: true, Description: si.Doc},
	}}
}

// ImportID is the import ID given, or the identity's value.
func (si SingleIdentity) ImportID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var v types.String
	diags.Append(req.Identity.GetAttribute(ctx, path.Root(si.Name), &v)...)
	return v.ValueString()
}

// FromState records the identity from st, as resourceIdentity.FromState
// does: deferred at the start of Create, Read and Update.
func (si SingleIdentity) FromState(ctx context.Context, st, prior *tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if id == nil || st == nil {
		return
	}
	if st.Raw.IsNull() {
		if prior == nil || prior.Raw.IsNull() {
			return
		}
		st = prior
	}
	var v types.String
	if d := st.GetAttribute(ctx, path.Root(si.Name), &v); d.HasError() || v.IsUnknown() || v.ValueString() == "" {
		return
	}
	si.Record(ctx, id, v.ValueString(), diags)
}

// Record sets the identity to value; nothing when Terraform sent none.
func (si SingleIdentity) Record(ctx context.Context, id *tfsdk.ResourceIdentity, value string, diags *diag.Diagnostics) {
	if id == nil {
		return
	}
	obj, d := types.ObjectValue(map[string]attr.Type{si.Name: types.StringType}, map[string]attr.Value{si.Name: types.StringValue(value)})
	diags.Append(d...)
	if !d.HasError() {
		diags.Append(id.Set(ctx, obj)...)
	}
}
