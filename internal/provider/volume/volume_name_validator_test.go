package volume

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestVolumeNameValidator: a per-allocation index such as "[0]" is allowed
// in CSI volume names only.
func TestVolumeNameValidator(t *testing.T) {
	ctx := context.Background()
	sch := volumeSchema(ctx)
	objType := sch.Type().TerraformType(ctx).(tftypes.Object)
	config := func(name string, typ tftypes.Value) tfsdk.Config {
		vals := map[string]tftypes.Value{}
		for k, at := range objType.AttributeTypes {
			vals[k] = tftypes.NewValue(at, nil)
		}
		vals["name"] = tftypes.NewValue(tftypes.String, name)
		vals["type"] = typ
		return tfsdk.Config{Schema: sch, Raw: tftypes.NewValue(objType, vals)}
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	tests := []struct {
		name    string
		volName string
		typ     tftypes.Value
		want    string // "" = valid
	}{
		{"csi with index", "data[0]", str("csi"), ""},
		{"csi without index", "data", str("csi"), ""},
		{"csi with a bad suffix", "data[x]", str("csi"), "per-allocation index"},
		{"host with index", "data[0]", str("host"), `the character '['`},
		{"default type is host", "data[1]", tftypes.NewValue(tftypes.String, nil), `the character '['`},
		{"unknown type checks the CSI rule", "data[1]", tftypes.NewValue(tftypes.String, tftypes.UnknownValue), ""},
		{"host plain", "data", str("host"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := validator.StringRequest{Path: path.Root("name"), Config: config(tt.volName, tt.typ), ConfigValue: types.StringValue(tt.volName)}
			resp := &validator.StringResponse{}
			volumeNameValidator().ValidateString(ctx, req, resp)
			switch errs := resp.Diagnostics.Errors(); {
			case tt.want == "" && len(errs) > 0:
				t.Errorf("unexpected errors %v", errs)
			case tt.want != "" && len(errs) != 1:
				t.Errorf("errors = %v, want one containing %q", errs, tt.want)
			case tt.want != "" && !strings.Contains(errs[0].Detail(), tt.want):
				t.Errorf("detail %q does not contain %q", errs[0].Detail(), tt.want)
			}
		})
	}
}
