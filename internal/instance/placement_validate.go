package instance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	version "github.com/hashicorp/go-version"
)

// placement mirrors Nomad 1.10's Constraint.Validate, Affinity.Validate and
// Spread.Validate (nomad/structs/structs.go) for the rules that span a
// constraint's fields. The schema checks each operator against its list,
// and weights and percents against their ranges; an element whose
// operator the schema refuses is not checked again here, so a mistake is
// one error. Paths name the set element (the value as configured) and the
// attribute within it.
//
// Beyond Nomad, berth refuses distinct_hosts values other than empty,
// "true" and "false" (Nomad enforces a constraint whose value does not
// parse as a boolean), and a constraint or affinity that repeats another
// once defaults are filled in (e.g. the operator unset and "=").
//
// A system job may have neither affinities nor spreads (Nomad's
// Job.Validate): it runs on every eligible node anyway.
func (v *validator) placement(spec Spec) {
	s := spec.Placement
	if spec.JobType() == TypeSystem {
		if len(s.Affinities) > 0 {
			v.add(path("placement", "affinities"), "Affinities on a system job",
				"A system job runs on every eligible node of its node pool, so there is nothing to prefer; Nomad refuses affinities on system jobs. Remove them, or use constraints.")
		}
		if len(s.Spreads) > 0 {
			v.add(path("placement", "spreads"), "Spreads on a system job",
				"A system job runs one allocation on every eligible node of its node pool, so there is nothing to spread; Nomad refuses spreads on system jobs. Remove them.")
		}
	}
	seenC := map[Constraint]bool{}
	for _, c := range s.Constraints {
		at := func(elems ...any) []any { return append(path("placement", "constraints", c), elems...) }
		if !slices.Contains(ConstraintOperators(), canonicalOperator(c.Operator)) {
			continue
		}
		if msg := constraintProblem(c); msg != "" {
			v.add(at(problemField(msg)), "Invalid constraint", msg)
			continue
		}
		key := c
		key.Operator = canonicalOperator(c.Operator)
		if seenC[key] {
			v.add(at(), "Duplicate constraint",
				fmt.Sprintf("The constraint %s repeats another one (an unset operator is %q).", describeConstraint(key), DefaultOperator))
		}
		seenC[key] = true
	}

	seenA := map[Affinity]bool{}
	for _, a := range s.Affinities {
		at := func(elems ...any) []any { return append(path("placement", "affinities", a), elems...) }
		if !slices.Contains(AffinityOperators(), canonicalOperator(a.Operator)) {
			continue
		}
		if msg := affinityProblem(a); msg != "" {
			v.add(at(problemField(msg)), "Invalid affinity", msg)
			continue
		}
		key := a
		key.Operator, key.Weight = canonicalOperator(a.Operator), canonicalWeight(a.Weight)
		if seenA[key] {
			v.add(at(), "Duplicate affinity",
				fmt.Sprintf("The affinity on %q repeats another one once defaults are filled in (operator %q, weight %d).",
					a.Attribute, DefaultOperator, DefaultWeight))
		}
		seenA[key] = true
	}

	for _, sp := range s.Spreads {
		v.spread(sp)
	}
}

// problemField is the attribute a constraint's problem is reported at:
// the value, except for a missing attribute.
func problemField(msg string) string {
	if strings.HasPrefix(msg, "attribute ") {
		return "attribute"
	}
	return "value"
}

// constraintProblem returns what Nomad would refuse in c, "" if nothing.
func constraintProblem(c Constraint) string {
	op := canonicalOperator(c.Operator)
	if op != opDistinctHosts && c.Attribute == "" {
		return fmt.Sprintf("attribute is required with operator %q, for example \"${meta.rack}\".", op)
	}
	switch op {
	case opDistinctHosts:
		if c.Value != "" && c.Value != "true" && c.Value != "false" {
			return fmt.Sprintf("value is %q; distinct_hosts takes \"true\", \"false\" or no value (meaning \"true\").", c.Value)
		}
	case opDistinctProperty:
		if c.Value != "" {
			if n, err := strconv.ParseUint(c.Value, 10, 64); err != nil || n < 1 {
				return fmt.Sprintf("value is %q; distinct_property takes how many allocations may share a value of the attribute, "+
					"an integer of 1 or more, or no value (meaning 1).", c.Value)
			}
		}
	default:
		return comparisonProblem(op, c.Value)
	}
	return ""
}

func affinityProblem(a Affinity) string {
	op := canonicalOperator(a.Operator)
	if a.Attribute == "" {
		return fmt.Sprintf("attribute is required with operator %q, for example \"${meta.rack}\".", op)
	}
	return comparisonProblem(op, a.Value)
}

// comparisonProblem checks the value of the operators constraints and
// affinities share.
func comparisonProblem(op, value string) string {
	switch op {
	case opIsSet, opIsNotSet:
		if value != "" {
			return fmt.Sprintf("value is %q; operator %q tests only whether the attribute exists, so leave value unset.", value, op)
		}
	case opSetContains, opSetContainsAll, opSetContainsAny:
		if value == "" {
			return fmt.Sprintf("value is required with operator %q: a comma-separated list, for example \"a,b\".", op)
		}
	case opRegexp:
		if _, err := regexp.Compile(value); err != nil {
			return fmt.Sprintf("value %q is not a regular expression Nomad accepts: %v.", value, err)
		}
	case opVersion:
		if _, err := version.NewConstraint(value); err != nil {
			return fmt.Sprintf("value %q is not a version constraint, such as \">= 1.2, < 2.0\" or \"~> 1.2\": %v.", value, err)
		}
	case opSemver:
		if err := checkSemverConstraint(value); err != nil {
			return fmt.Sprintf("value %q is not a semver constraint, such as \">= 1.2.0, < 2.0.0\": %v.", value, err)
		}
	default: // =, !=, <, <=, >, >=
		if value == "" {
			return fmt.Sprintf("value is required with operator %q.", op)
		}
	}
	return ""
}

// semverConstraintRE is the grammar of one element of Nomad's semver
// constraints (helper/constraints/semver): an optional comparison and a
// semantic version, which go-version then parses strictly. Unlike
// go-version's own constraints it has no "~>".
var semverConstraintRE = regexp.MustCompile(`^\s*(<=|>=|!=|<|>|=)?\s*(` + version.SemverRegexpRaw + `)\s*$`)

func checkSemverConstraint(value string) error {
	for _, part := range strings.Split(value, ",") {
		m := semverConstraintRE.FindStringSubmatch(part)
		if m == nil {
			return fmt.Errorf("malformed constraint %q", part)
		}
		if _, err := version.NewSemver(m[2]); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) spread(sp Spread) {
	at := func(elems ...any) []any { return append(path("placement", "spreads", sp), elems...) }
	if sp.Attribute == "" {
		v.add(at("attribute"), "Invalid spread", "attribute is required, for example \"${node.datacenter}\".")
		return
	}
	sum := 0
	seen := map[string]bool{}
	var dup []string
	for _, t := range sp.Targets {
		sum += t.Percent
		if seen[t.Value] && !slices.Contains(dup, t.Value) {
			dup = append(dup, t.Value)
		}
		seen[t.Value] = true
	}
	sort.Strings(dup)
	switch {
	case len(dup) > 0:
		v.add(at("targets"), "Duplicate spread target",
			fmt.Sprintf("The spread on %q names the value %s more than once; give each value one percent.", sp.Attribute, quoteAll(dup)))
	case sum > 100:
		v.add(at("targets"), "Invalid spread targets",
			fmt.Sprintf("The targets of the spread on %q add up to %d%%; they may add up to 100%% at most.", sp.Attribute, sum))
	}
}

func describeConstraint(c Constraint) string {
	return fmt.Sprintf("%q %s %q", c.Attribute, c.Operator, c.Value)
}

func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
