package volume

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

func sv(s string) sizeValue { return sizeValue{StringValue: basetypes.NewStringValue(s)} }

// Sizes equal in bytes compare equal whatever their spelling, the way
// Nomad reads them: "20G" is "20GB" (10⁹), not "20GiB" (2³⁰).
func TestSizeSemanticEquals(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"1GiB", "1024MiB", true}, {"20G", "20GB", true}, {"20gb", "20GB", true}, {"20Gi", "20GiB", true},
		{"20G", "20GiB", false}, {"1gib", "1GiB", true}, {"1 Gb", "1000MB", true}, {"1PiB", "1024TiB", true},
		{"1,5GiB", "15GiB", false}, {"nonsense", "nonsense", false},
	}
	for _, c := range cases {
		got, diags := sv(c.a).StringSemanticEquals(context.Background(), sv(c.b))
		if diags.HasError() || got != c.want {
			t.Errorf("%q vs %q: equal = %v (%v), want %v", c.a, c.b, got, diags, c.want)
		}
	}
}

func TestSizeValidateAttribute(t *testing.T) {
	for in, wantErr := range map[string]string{
		"20G": "", "20GB": "", "20gib": "", "1PiB": "", "512": "", "10MiB": "",
		"1,5GiB": "comma", "10 gigs": "not a number", "1.3B": "whole number", "-1G": "not a number",
	} {
		var resp xattr.ValidateAttributeResponse
		sv(in).ValidateAttribute(context.Background(), xattr.ValidateAttributeRequest{Path: path.Root("capacity_max")}, &resp)
		switch {
		case wantErr == "" && resp.Diagnostics.HasError():
			t.Errorf("%q: unexpected diagnostics %v", in, resp.Diagnostics)
		case wantErr != "" && resp.Diagnostics.ErrorsCount() != 1:
			t.Errorf("%q: %d errors, want exactly one", in, resp.Diagnostics.ErrorsCount())
		case wantErr != "":
			d := resp.Diagnostics.Errors()[0]
			if !strings.Contains(d.Detail(), wantErr) || d.Summary() != "Invalid size" {
				t.Errorf("%q: diagnostic %q: %q, want it to say %q", in, d.Summary(), d.Detail(), wantErr)
			}
		}
	}
}

// A new spelling of the same size keeps state's value in the plan; a
// different size plans the new value.
func TestKeepEqualSize(t *testing.T) {
	for _, c := range []struct{ state, plan, want string }{
		{"20MB", "20M", "20MB"}, {"20MB", "20mb", "20MB"}, {"20MiB", "20Mi", "20MiB"}, {"20MB", "20MiB", "20MiB"},
	} {
		req := planmodifier.StringRequest{StateValue: basetypes.NewStringValue(c.state), PlanValue: basetypes.NewStringValue(c.plan)}
		resp := planmodifier.StringResponse{PlanValue: req.PlanValue}
		keepEqualSize{}.PlanModifyString(context.Background(), req, &resp)
		if got := resp.PlanValue.ValueString(); got != c.want {
			t.Errorf("state %q, config %q: planned %q, want %q", c.state, c.plan, got, c.want)
		}
	}
}

// The documentation of size attributes names Nomad's spellings.
func TestSizeDocNamesSpellings(t *testing.T) {
	for _, s := range []string{"`20G`", "`GiB`", "`PB`", "case-insensitive", "`1024MiB` after `1GiB`"} {
		if !strings.Contains(sizeDoc, s) {
			t.Errorf("sizeDoc does not mention %s: %s", s, sizeDoc)
		}
	}
}
