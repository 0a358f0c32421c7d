package server

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// schemaTree is what the plan shortcuts need to know of one attribute of
// berth_instance's schema, read off the schema once: its default, whether
// Terraform or the provider fills it (computed, write-only), and the same
// for the attributes of its nested object.
type schemaTree struct {
	value     *tftypes.Value         // the attribute's default; nil when it has none
	computed  bool                   // the provider may set it (unknown in a new plan when config leaves it null)
	writeOnly bool                   // never in a plan or state
	attrs     map[string]*schemaTree // a nested object's attributes
	elements  bool                   // attrs apply to every element of a list or map
	set       bool                   // attrs apply to set elements, which config cannot be matched to
	// defaultsBeneath: some attribute in attrs, at any depth, has a default.
	defaultsBeneath bool
	// filledBeneath: some attribute in attrs, at any depth, has a default,
	// is computed or is write-only, so a new plan may differ from config there.
	filledBeneath bool
}

// hasDefaults reports whether the attribute or one beneath it has a default.
func (n *schemaTree) hasDefaults() bool { return n.value != nil || n.defaultsBeneath }

// filled reports whether a new plan may hold something other than the
// configuration at or beneath the attribute.
func (n *schemaTree) filled() bool {
	return n.value != nil || n.computed || n.writeOnly || n.filledBeneath
}

// schemaTreeOf builds the trees of attrs. A dynamic attribute is an error:
// neither shortcut knows how the framework plans one.
func schemaTreeOf(ctx context.Context, attrs map[string]schema.Attribute) (map[string]*schemaTree, error) {
	out := make(map[string]*schemaTree, len(attrs))
	for name, a := range attrs {
		if _, ok := a.(schema.DynamicAttribute); ok {
			return nil, fmt.Errorf("%s: a dynamic attribute is not read by the plan shortcuts", name)
		}
		n := &schemaTree{computed: a.IsComputed(), writeOnly: a.IsWriteOnly()}
		d, err := attributeDefault(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if d != nil {
			v, err := d.ToTerraformValue(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			n.value = &v
		}
		if nested := shared.NestedAttributes(a); nested != nil {
			if n.attrs, err = schemaTreeOf(ctx, nested); err != nil {
				return nil, fmt.Errorf("%s.%w", name, err)
			}
			for _, c := range n.attrs {
				n.defaultsBeneath = n.defaultsBeneath || c.hasDefaults()
				n.filledBeneath = n.filledBeneath || c.filled()
			}
			switch a.(type) {
			case schema.ListNestedAttribute, schema.MapNestedAttribute:
				n.elements = true
			case schema.SetNestedAttribute:
				n.set = true
			}
		}
		out[name] = n
	}
	return out, nil
}

// attributeDefault is a's schema default, nil when it has none. An
// attribute kind with a default it cannot read is an error, so a new kind
// of default cannot slip past the shortcuts (TestUnchangedPlans_everyDefaultRead).
func attributeDefault(ctx context.Context, a schema.Attribute) (attr.Value, error) {
	if d := shared.SchemaDefault(ctx, a); d != nil {
		return d, nil
	}
	switch a := a.(type) {
	case schema.ListAttribute:
		if a.Default != nil {
			var r defaults.ListResponse
			a.Default.DefaultList(ctx, defaults.ListRequest{}, &r)
			return r.PlanValue, nil
		}
	case schema.MapAttribute:
		if a.Default != nil {
			var r defaults.MapResponse
			a.Default.DefaultMap(ctx, defaults.MapRequest{}, &r)
			return r.PlanValue, nil
		}
	}
	if f := reflect.ValueOf(a).FieldByName("Default"); f.IsValid() && !f.IsNil() {
		return nil, fmt.Errorf("a %T default is not read by the plan shortcuts", a)
	}
	return nil, nil
}
