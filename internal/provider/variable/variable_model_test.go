package variable

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// The review's case: an apply added db_pass to items_wo, Nomad committed
// it, the reply was lost, so state still has items {a} and no db_pass.
// The refresh must not make db_pass a plain item: it is recorded by key,
// its value nowhere in the model, and named in the returned keys (the
// warning). A plain value changed in Nomad is withheld the same way.
func TestFromNomad_lostWriteOnlyKeyStaysOut(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	m := variableModel{
		Items:       types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("1"), "b": types.StringValue("2")}),
		ItemsWOKeys: types.SetValueMust(types.StringType, []attr.Value{types.StringValue("token")}),
		ItemsWOVer:  types.Int64Value(1), InSync: types.BoolValue(true), ModifyIndex: types.Int64Value(10),
	}
	withheld := m.fromNomad(ctx, &variable.Variable{Meta: variable.Meta{Namespace: "default", Path: "app", ModifyIndex: 12},
		Items: map[string]string{"a": "1", "b": "CHANGED-SECRET", "token": "t", "db_pass": "S3CRET"}}, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if strings.Join(withheld, ",") != "b,db_pass" {
		t.Errorf("withheld %v, want b and db_pass", withheld)
	}
	if got := m.Items.String(); strings.Contains(got, "S3CRET") || strings.Contains(got, "CHANGED-SECRET") || !strings.Contains(got, `"a"`) {
		t.Errorf("items = %s; want only a", got)
	}
	if got := m.ItemsWOKeys.String(); got != `["b","db_pass","token"]` {
		t.Errorf("items_wo_keys = %s", got)
	}
	if m.InSync.ValueBool() {
		t.Error("a write berth did not see answered is not in sync")
	}
}
