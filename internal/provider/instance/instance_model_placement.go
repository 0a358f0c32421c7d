package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// writePlacement writes s's group name and placement into m. Nomad's
// defaults (group "app", operator "=", weight 50) read back as null, the
// way an unset attribute reads, so an imported job whose configuration
// leaves them out plans empty.
func writePlacement(ctx context.Context, s instance.Spec, m *instanceModel, diags *diag.Diagnostics) {
	m.Group = types.StringNull()
	if g := s.TaskGroup(); g != instance.GroupName {
		m.Group = types.StringValue(g)
	}
	p := s.Placement
	cs := make([]instance.Constraint, len(p.Constraints))
	for i, c := range p.Constraints {
		c.Operator = elideDefault(c.Operator, instance.DefaultOperator)
		cs[i] = c
	}
	as := make([]instance.Affinity, len(p.Affinities))
	for i, a := range p.Affinities {
		a.Operator = elideDefault(a.Operator, instance.DefaultOperator)
		a.Weight = elideDefault(a.Weight, instance.DefaultWeight)
		as[i] = a
	}
	ss := make([]instance.Spread, len(p.Spreads))
	for i, sp := range p.Spreads {
		sp.Weight = elideDefault(sp.Weight, instance.DefaultWeight)
		ss[i] = sp
	}
	// Empty slices are nil: a placement with nothing in it reads as null.
	m.Placement = writeAttr[types.Object](ctx, "placement",
		instance.Placement{Constraints: nilIfEmpty(cs), Affinities: nilIfEmpty(as), Spreads: nilIfEmpty(ss)}, diags)
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// elideDefault returns the zero value (null in Terraform) for def.
func elideDefault[T comparable](v, def T) T {
	var zero T
	if v == def {
		return zero
	}
	return v
}
