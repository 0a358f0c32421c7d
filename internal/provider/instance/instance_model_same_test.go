package instance

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

func TestSameModel(t *testing.T) {
	// A model as Read gets it from state: every field typed.
	ctx := context.Background()
	s := Schema(ctx)
	_, state := acctest.BenchInstanceValues(s.Type().TerraformType(ctx).(tftypes.Object))
	var base instanceModel
	if d := (tfsdk.State{Schema: s, Raw: state}).Get(ctx, &base); d.HasError() {
		t.Fatal(d)
	}
	changed := func(f func(m *instanceModel)) instanceModel { m := base; f(&m); return m }
	cases := map[string]struct {
		other instanceModel
		same  bool
	}{
		"identical":      {other: base, same: true},
		"scalar differs": {other: changed(func(m *instanceModel) { m.Replicas = types.Int64Value(3) }), same: false},
		"null vs value":  {other: changed(func(m *instanceModel) { m.Name = types.StringNull() }), same: false},
		"map element differs": {other: changed(func(m *instanceModel) {
			m.Meta = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("b")})
		}), same: false},
		"computed attribute": {other: changed(func(m *instanceModel) { m.JobVersion = types.Int64Value(9) }), same: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := shared.SameModel(&base, &tc.other); got != tc.same {
				t.Fatalf("sameModel = %v, want %v", got, tc.same)
			}
		})
	}
}
