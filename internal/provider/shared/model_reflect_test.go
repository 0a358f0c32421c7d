package shared

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A Go field whose kind disagrees with its attribute's type is a provider
// bug: the conversion reports it at the attribute's path instead of
// panicking in the middle of a plan.
func TestTFToGoReportsAMismatchedField(t *testing.T) {
	ctx := context.Background()
	attrs := map[string]schema.Attribute{
		"port":  schema.Int64Attribute{Optional: true},
		"tags":  schema.ListAttribute{ElementType: types.StringType, Optional: true},
		"owner": schema.StringAttribute{Optional: true},
	}
	obj := types.ObjectValueMust(AttributeTypes(attrs), map[string]attr.Value{
		"port":  types.Int64Value(8080),
		"tags":  types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a")}),
		"owner": types.StringValue("payments"),
	})
	a := schema.SingleNestedAttribute{Attributes: attrs, Optional: true}
	cases := map[string]struct {
		dst  any
		path string
	}{
		"string field, number attribute": {dst: &struct {
			Port string `tf:"port"`
		}{}, path: "x.port"},
		"map field, list attribute": {dst: &struct {
			Tags map[string]string `tf:"tags"`
		}{}, path: "x.tags"},
		"number field, string attribute": {dst: &struct {
			Owner int `tf:"owner"`
		}{}, path: "x.owner"},
		"struct field, string attribute": {dst: &struct {
			Owner struct {
				Name string `tf:"name"`
			} `tf:"owner"`
		}{}, path: "x.owner"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var diags diag.Diagnostics
			if err := TfToGo(ctx, path.Root("x"), a, obj, reflect.ValueOf(tc.dst).Elem(), &diags); err != nil {
				t.Fatal(err)
			}
			if diags.ErrorsCount() != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || d.Path().String() != tc.path || !strings.Contains(d.Summary(), "Provider bug") {
				t.Fatalf("want a provider bug at %s, got %v", tc.path, diags)
			}
		})
	}
	// The matching struct converts without a word.
	var ok struct {
		Port  int      `tf:"port"`
		Tags  []string `tf:"tags"`
		Owner string   `tf:"owner"`
	}
	var diags diag.Diagnostics
	if err := TfToGo(ctx, path.Root("x"), a, obj, reflect.ValueOf(&ok).Elem(), &diags); err != nil || diags.HasError() {
		t.Fatalf("err %v, diags %v", err, diags)
	}
	if ok.Port != 8080 || len(ok.Tags) != 1 || ok.Owner != "payments" {
		t.Fatalf("converted %+v", ok)
	}
}
