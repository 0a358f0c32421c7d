package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/names"
)

// StringRule is a string validator backed by one of the rules in
// internal/names; its description states the rule, and its error says what
// is wrong with the value and what the rule is.
type StringRule struct {
	Summary string
	Desc    string
	Check   func(string) error
}

var _ validator.String = StringRule{}

func (v StringRule) Description(context.Context) string         { return v.Desc }
func (v StringRule) MarkdownDescription(context.Context) string { return v.Desc }

func (v StringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.Check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, v.Summary, "Attribute "+req.Path.String()+": "+err.Error()+".")
	}
}

// NameValidator enforces berth's name rule on job, volume and reservation
// names.
func NameValidator() validator.String {
	return StringRule{Summary: "Invalid name", Desc: "must be " + names.Rule, Check: names.Check}
}

// LookupNameValidator is for names of existing objects a data source looks
// up, which may have been made outside berth.
func LookupNameValidator() validator.String {
	return StringRule{Summary: "Invalid name", Desc: "must be " + names.LookupRule, Check: names.CheckLookup}
}

func NamespaceValidator() validator.String {
	return StringRule{Summary: "Invalid namespace", Desc: "must be " + names.NamespaceRule, Check: names.CheckNamespace}
}

func NodeIDValidator() validator.String {
	return StringRule{Summary: "Invalid node ID", Desc: "must be " + names.NodeIDRule, Check: names.CheckNodeID}
}

func ReservationIDValidator() validator.String {
	return StringRule{Summary: "Invalid node reservation ID", Desc: "must be `<node_id>/<name>`, a berth_node_reservation's `id`",
		Check: names.CheckNodeReservationID}
}

// Sentences for MarkdownDescription, so the documentation states the rules
// the validators enforce.
const (
	NameRuleDoc      = " Names are " + names.Rule + "."
	NamespaceRuleDoc = " Nomad namespaces are " + names.NamespaceRule + "."
	LookupRuleDoc    = " It must be " + names.LookupRule + "."
)

// AnyInvalidValue reports whether any value in vs, at any depth, fails its
// own type's validation (an unparsable duration, JSON that is not JSON).
// The framework reports those at their attribute already; converting such
// a value with As or ElementsAs validates it once more and reports it again
// at a path relative to the object converted, so callers skip their own
// checks instead.
func AnyInvalidValue(ctx context.Context, vs ...attr.Value) bool {
	for _, v := range vs {
		if v == nil || v.IsNull() || v.IsUnknown() {
			continue
		}
		if va, ok := v.(xattr.ValidateableAttribute); ok {
			var resp xattr.ValidateAttributeResponse
			va.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{}, &resp)
			if resp.Diagnostics.HasError() {
				return true
			}
		}
		var children []attr.Value
		switch c := v.(type) {
		case basetypes.ObjectValuable:
			if o, diags := c.ToObjectValue(ctx); !diags.HasError() {
				for _, a := range o.Attributes() {
					children = append(children, a)
				}
			}
		case basetypes.MapValuable:
			if m, diags := c.ToMapValue(ctx); !diags.HasError() {
				for _, e := range m.Elements() {
					children = append(children, e)
				}
			}
		case basetypes.ListValuable:
			if l, diags := c.ToListValue(ctx); !diags.HasError() {
				children = l.Elements()
			}
		case basetypes.SetValuable:
			if l, diags := c.ToSetValue(ctx); !diags.HasError() {
				children = l.Elements()
			}
		}
		if AnyInvalidValue(ctx, children...) {
			return true
		}
	}
	return false
}
