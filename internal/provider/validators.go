package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/names"
)

// stringRule is a string validator backed by one of the rules in
// internal/names; its description states the rule, and its error says what
// is wrong with the value and what the rule is.
type stringRule struct {
	summary string
	desc    string
	check   func(string) error
}

var _ validator.String = stringRule{}

func (v stringRule) Description(context.Context) string         { return v.desc }
func (v stringRule) MarkdownDescription(context.Context) string { return v.desc }

func (v stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, "Attribute "+req.Path.String()+": "+err.Error()+".")
	}
}

// nameValidator enforces berth's name rule on job, volume and reservation
// names.
func nameValidator() validator.String {
	return stringRule{summary: "Invalid name", desc: "must be " + names.Rule, check: names.Check}
}

// lookupNameValidator is for names of existing objects a data source looks
// up, which may have been made outside berth.
func lookupNameValidator() validator.String {
	return stringRule{summary: "Invalid name", desc: "must be " + names.LookupRule, check: names.CheckLookup}
}

func namespaceValidator() validator.String {
	return stringRule{summary: "Invalid namespace", desc: "must be " + names.NamespaceRule, check: names.CheckNamespace}
}

func nodeIDValidator() validator.String {
	return stringRule{summary: "Invalid node ID", desc: "must be " + names.NodeIDRule, check: names.CheckNodeID}
}

func reservationIDValidator() validator.String {
	return stringRule{summary: "Invalid node reservation ID", desc: "must be `<node_id>/<name>`, a berth_node_reservation's `id`",
		check: names.CheckNodeReservationID}
}

// Sentences for MarkdownDescription, so the documentation states the rules
// the validators enforce.
const (
	nameRuleDoc      = " Names are " + names.Rule + "."
	namespaceRuleDoc = " Nomad namespaces are " + names.NamespaceRule + "."
	lookupRuleDoc    = " It must be " + names.LookupRule + "."
)

// anyInvalidValue reports whether any value in vs, at any depth, fails its
// own type's validation (an unparsable duration, JSON that is not JSON).
// The framework reports those at their attribute already; converting such
// a value with As or ElementsAs validates it once more and reports it again
// at a path relative to the object converted, so callers skip their own
// checks instead.
func anyInvalidValue(ctx context.Context, vs ...attr.Value) bool {
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
		if anyInvalidValue(ctx, children...) {
			return true
		}
	}
	return false
}
