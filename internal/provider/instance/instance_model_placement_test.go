package instance

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// TestPlacementModelRoundTrip: placement survives domain -> Terraform sets
// -> domain; Nomad's defaults read back as null; an unset group reads as
// null and a renamed one as its name.
func TestPlacementModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	want := instance.Normalize(instance.Spec{
		Name: "shop", Group: "web", Running: true,
		Services: map[string]instance.Service{"a": {Driver: "exec", CPU: 100, Memory: 300}},
		Update:   instance.DefaultUpdate(),
		Placement: instance.Placement{Constraints: []instance.Constraint{
			{Attribute: "${meta.disk}", Value: "ssd"},
			{Operator: "distinct_hosts"},
			{Attribute: "${meta.rack}", Operator: "regexp", Value: "^r"},
		},
			Affinities: []instance.Affinity{{Attribute: "${meta.rack}", Value: "r1"}, {Attribute: "${meta.zone}", Operator: "!=", Value: "z", Weight: -20}},
			Spreads: []instance.Spread{
				{Attribute: "${meta.rack}", Weight: 80, Targets: []instance.SpreadTarget{{Value: "r1", Percent: 70}, {Value: "r2"}}},
				{Attribute: "${node.datacenter}"},
			}},
	})
	m := instanceModel{Datacenters: types.ListNull(types.StringType)}
	if diags := specToModel(ctx, want, &m); diags.HasError() {
		t.Fatalf("specToModel: %v", diags)
	}
	sets := m.Placement.Attributes()
	if m.Group.ValueString() != "web" || len(sets["constraints"].(types.Set).Elements()) != 3 ||
		len(sets["affinities"].(types.Set).Elements()) != 2 || len(sets["spreads"].(types.Set).Elements()) != 2 {
		t.Fatalf("model: group %v, placement %v", m.Group, m.Placement)
	}
	for _, e := range sets["constraints"].(types.Set).Elements() {
		if strings.Contains(e.String(), `"operator":"="`) {
			t.Errorf("operator = read back as a value, want null: %v", e)
		}
	}
	for _, e := range sets["affinities"].(types.Set).Elements() {
		if strings.Contains(e.String(), `"weight":50`) {
			t.Errorf("weight 50 read back as a value, want null: %v", e)
		}
	}
	only := want
	only.Placement = instance.Placement{Spreads: want.Placement.Spreads}
	if diags := specToModel(ctx, only, &m); diags.HasError() {
		t.Fatal(diags)
	}
	if sets := m.Placement.Attributes(); !sets["constraints"].IsNull() || !sets["affinities"].IsNull() || sets["spreads"].IsNull() {
		t.Errorf("only spreads: placement = %v, want null constraints and affinities", m.Placement)
	}
	if diags := specToModel(ctx, want, &m); diags.HasError() {
		t.Fatal(diags)
	}
	got, diags, err := m.toSpec(ctx)
	if err != nil || diags.HasError() {
		t.Fatalf("toSpec: %v %v", err, diags)
	}
	if got = instance.Normalize(got); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs: %v", instance.Diff(want, got))
	}

	plain := want
	plain.Group, plain.Placement = "", instance.Placement{}
	if diags := specToModel(ctx, instance.Normalize(plain), &m); diags.HasError() {
		t.Fatal(diags)
	}
	if !m.Group.IsNull() || !m.Placement.IsNull() {
		t.Errorf("unset placement and group %q: got %v %v, want both null", instance.GroupName, m.Group, m.Placement)
	}
}

// TestFieldPathOfSetElement: a validation error inside a set element is
// reported at that element, as configured, and the field within it.
func TestFieldPathOfSetElement(t *testing.T) {
	c := instance.Constraint{Operator: "distinct_hosts", Value: "yes"}
	p := fieldPath([]any{"placement", "constraints", c, "value"})
	sets := shared.NestedAttributes(instanceAttributes()["placement"])
	v, diags := shared.GoToTF(context.Background(), shared.ElementAttribute(sets["constraints"]), reflect.ValueOf(c))
	if diags.HasError() {
		t.Fatal(diags)
	}
	if want := path.Root("placement").AtName("constraints").AtSetValue(v).AtName("value"); !p.Equal(want) {
		t.Errorf("path = %s, want %s", p, want)
	}
	if !strings.Contains(p.String(), `"attribute":<null>`) {
		t.Errorf("path = %s: the unset attribute must be null, as in configuration", p)
	}
}
