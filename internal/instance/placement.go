package instance

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Placement: the instance's constraints, affinities and spreads. berth
// writes them on the task group; its own node reservation pin (PinTarget)
// stays on the job, so the user's list reads back exactly and a user's own
// constraint on ${node.unique.id} is never taken for the pin. A job written
// by hand may hold placement on the job as well: SpecFromJob merges both
// levels into one list, and the next registration moves it to the group.
//
// Order never matters to Nomad for any of the three, so Normalize sorts
// them (and the targets of a spread) and drops duplicates; the Terraform
// attributes are sets.

// Placement is where an instance's allocations may run and which nodes
// they prefer; the zero value places anywhere Nomad likes.
type Placement struct {
	Constraints []Constraint `tf:"constraints"`
	Affinities  []Affinity   `tf:"affinities"`
	Spreads     []Spread     `tf:"spreads"`
}

// Constraint is one placement constraint. Attribute, Operator and Value
// are Nomad's jobspec names for LTarget, Operand and RTarget.
type Constraint struct {
	Attribute string `tf:"attribute"`
	Operator  string `tf:"operator"` // "" = DefaultOperator
	Value     string `tf:"value"`
}

// Affinity is one placement preference.
type Affinity struct {
	Attribute string `tf:"attribute"`
	Operator  string `tf:"operator"` // "" = DefaultOperator
	Value     string `tf:"value"`
	Weight    int    `tf:"weight"` // -100..100, not 0; 0 = DefaultWeight
}

// Spread spreads the allocations over the values of a node attribute.
type Spread struct {
	Attribute string `tf:"attribute"`
	Weight    int    `tf:"weight"` // 1..100; 0 = DefaultWeight
	// Targets are the desired shares per value; none means an even spread.
	Targets []SpreadTarget `tf:"targets"`
}

// SpreadTarget is the desired share of allocations for one attribute value.
type SpreadTarget struct {
	Value   string `tf:"value"`
	Percent int    `tf:"percent"` // 0..100
}

const (
	// DefaultOperator is the operator of a constraint or affinity that
	// names none (Nomad's jobspec default).
	DefaultOperator = "="
	// DefaultWeight is the weight Nomad gives an affinity or spread that
	// sets none (api Affinity.Canonicalize, Spread.Canonicalize).
	DefaultWeight = 50
	// MaxAffinityWeight bounds an affinity's weight on both sides, and
	// MaxSpreadWeight a spread's (Nomad's Affinity.Validate, Spread.Validate).
	MaxAffinityWeight = 100
	MaxSpreadWeight   = 100

	opDistinctHosts    = "distinct_hosts"
	opDistinctProperty = "distinct_property"
	opRegexp           = "regexp"
	opVersion          = "version"
	opSemver           = "semver"
	opSetContains      = "set_contains"
	opSetContainsAll   = "set_contains_all"
	opSetContainsAny   = "set_contains_any"
	opIsSet            = "is_set"
	opIsNotSet         = "is_not_set"
)

// ConstraintOperators lists every constraint operator berth accepts: the
// operators of Nomad 1.10's Constraint.Validate, without the aliases
// `==`, `is` and `not` (they read back as `=` and `!=`).
func ConstraintOperators() []string {
	return []string{"=", "!=", ">", ">=", "<", "<=", opRegexp, opSetContains, opSetContainsAll, opSetContainsAny,
		opVersion, opSemver, opIsSet, opIsNotSet, opDistinctHosts, opDistinctProperty}
}

// AffinityOperators lists the operators Nomad 1.10's Affinity.Validate
// accepts: the constraint operators except is_set, is_not_set,
// distinct_hosts and distinct_property.
func AffinityOperators() []string {
	return []string{"=", "!=", ">", ">=", "<", "<=", opRegexp, opSetContains, opSetContainsAll, opSetContainsAny,
		opVersion, opSemver}
}

// operatorAliases are the other spellings Nomad's scheduler gives the same
// meaning (scheduler/feasible.go checkConstraint).
var operatorAliases = map[string]string{"==": "=", "is": "=", "not": "!="}

func canonicalOperator(op string) string {
	if op == "" {
		return DefaultOperator
	}
	if canon, ok := operatorAliases[op]; ok {
		return canon
	}
	return op
}

func canonicalWeight(w int) int {
	if w == 0 {
		return DefaultWeight
	}
	return w
}

// TaskGroup is the name of the instance's task group.
func (s Spec) TaskGroup() string {
	if s.Group == "" {
		return GroupName
	}
	return s.Group
}

// normalizePlacement returns p in canonical form: defaults filled in,
// aliases replaced, sorted, without duplicates, empty as nil. Constraints
// Nomad adds to the group on its own (implicitConstraints) are dropped:
// Nomad's copy always has them, berth's spec never needs them.
func normalizePlacement(p Placement) Placement {
	s := &p
	var cs []Constraint
	for _, c := range s.Constraints {
		c.Operator = canonicalOperator(c.Operator)
		if isImplicit(c.Attribute, c.Operator) {
			continue
		}
		cs = append(cs, c)
	}
	s.Constraints = sortedUnique(cs, compareConstraints)

	as := make([]Affinity, 0, len(s.Affinities))
	for _, a := range s.Affinities {
		a.Operator = canonicalOperator(a.Operator)
		a.Weight = canonicalWeight(a.Weight)
		as = append(as, a)
	}
	s.Affinities = sortedUnique(as, compareAffinities)

	ss := make([]Spread, 0, len(s.Spreads))
	for _, sp := range s.Spreads {
		sp.Weight = canonicalWeight(sp.Weight)
		sp.Targets = sortedUnique(slices.Clone(sp.Targets), compareTargets)
		ss = append(ss, sp)
	}
	s.Spreads = sortedUnique(ss, compareSpreads)
	return p
}

func sortedUnique[T any](s []T, compare func(a, b T) int) []T {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.SortFunc(s, compare)
	return slices.CompactFunc(s, func(a, b T) bool { return compare(a, b) == 0 })
}

func compareConstraints(a, b Constraint) int {
	return cmp.Or(strings.Compare(a.Attribute, b.Attribute), strings.Compare(a.Operator, b.Operator), strings.Compare(a.Value, b.Value))
}

func compareAffinities(a, b Affinity) int {
	return cmp.Or(strings.Compare(a.Attribute, b.Attribute), strings.Compare(a.Operator, b.Operator),
		strings.Compare(a.Value, b.Value), cmp.Compare(a.Weight, b.Weight))
}

func compareTargets(a, b SpreadTarget) int {
	return cmp.Or(strings.Compare(a.Value, b.Value), cmp.Compare(a.Percent, b.Percent))
}

func compareSpreads(a, b Spread) int {
	return cmp.Or(strings.Compare(a.Attribute, b.Attribute), cmp.Compare(a.Weight, b.Weight),
		slices.CompareFunc(a.Targets, b.Targets, compareTargets))
}

// buildPlacement writes s onto the group.
func buildPlacement(s Placement, g *api.TaskGroup) {
	for _, c := range s.Constraints {
		g.Constraints = append(g.Constraints, &api.Constraint{LTarget: c.Attribute, Operand: canonicalOperator(c.Operator), RTarget: c.Value})
	}
	for _, a := range s.Affinities {
		aff := &api.Affinity{LTarget: a.Attribute, Operand: canonicalOperator(a.Operator), RTarget: a.Value}
		if a.Weight != 0 {
			aff.Weight = ptr(int8(a.Weight)) //nolint:gosec // Validate keeps it within -100..100
		}
		g.Affinities = append(g.Affinities, aff)
	}
	for _, sp := range s.Spreads {
		spread := &api.Spread{Attribute: sp.Attribute}
		if sp.Weight != 0 {
			spread.Weight = ptr(int8(sp.Weight)) //nolint:gosec // Validate keeps it within 1..100
		}
		for _, t := range sp.Targets {
			spread.SpreadTarget = append(spread.SpreadTarget, &api.SpreadTarget{Value: t.Value, Percent: uint8(t.Percent)}) //nolint:gosec // 0..100
		}
		g.Spreads = append(g.Spreads, spread)
	}
}

// readPlacement adds the constraints, affinities and spreads of one level
// (job or group) to s; Nomad's implicit constraints are left out by
// Normalize.
func readPlacement(s *Placement, cs []*api.Constraint, as []*api.Affinity, ss []*api.Spread) {
	for _, c := range cs {
		if c != nil {
			s.Constraints = append(s.Constraints, Constraint{Attribute: c.LTarget, Operator: c.Operand, Value: c.RTarget})
		}
	}
	for _, a := range as {
		if a != nil {
			s.Affinities = append(s.Affinities, Affinity{Attribute: a.LTarget, Operator: a.Operand, Value: a.RTarget, Weight: int(deref(a.Weight))})
		}
	}
	for _, sp := range ss {
		if sp == nil {
			continue
		}
		spread := Spread{Attribute: sp.Attribute, Weight: int(deref(sp.Weight))}
		for _, t := range sp.SpreadTarget {
			if t != nil {
				spread.Targets = append(spread.Targets, SpreadTarget{Value: t.Value, Percent: int(t.Percent)})
			}
		}
		s.Spreads = append(s.Spreads, spread)
	}
}

// isImplicit reports whether a constraint looks like one Nomad's admission
// hooks add on their own (implicitConstraints).
func isImplicit(attribute, operator string) bool {
	op, ok := implicitConstraints[attribute]
	return ok && op == operator
}
