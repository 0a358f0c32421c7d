package instance

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/nomad/api"
)

// placedSpec is fullSpec with every placement shape, a group name of its
// own and a node reservation pin.
func placedSpec() Spec {
	s := fullSpec()
	s.Group = "shop"
	s.PinNode = "77e393ef-0000-4000-8000-000000000000"
	s.Placement.Constraints = []Constraint{
		{Attribute: "${meta.disk}", Value: "ssd"},
		{Attribute: "${attr.kernel.name}", Operator: "!=", Value: "windows"},
		{Attribute: "${node.unique.id}", Operator: "=", Value: "a-user-pin"},
		{Attribute: "${meta.rack}", Operator: "regexp", Value: "^r[0-9]+$"},
		{Attribute: "${attr.nomad.version}", Operator: "version", Value: ">= 1.9, < 2"},
		{Attribute: "${attr.driver.docker.version}", Operator: "semver", Value: ">= 20.10.0"},
		{Attribute: "${meta.features}", Operator: "set_contains_any", Value: "a,b"},
		{Attribute: "${meta.gpu}", Operator: "is_not_set"},
		{Operator: "distinct_hosts", Value: "true"},
		{Attribute: "${meta.rack}", Operator: "distinct_property", Value: "2"},
	}
	s.Placement.Affinities = []Affinity{
		{Attribute: "${meta.rack}", Value: "r1", Weight: 30},
		{Attribute: "${node.class}", Operator: "!=", Value: "spot", Weight: -80},
		{Attribute: "${meta.zone}", Operator: "set_contains", Value: "z1"},
	}
	s.Placement.Spreads = []Spread{
		{Attribute: "${meta.rack}", Weight: 70, Targets: []SpreadTarget{{Value: "r2", Percent: 40}, {Value: "r1", Percent: 60}}},
		{Attribute: "${node.datacenter}"},
	}
	return s
}

func TestPlacementRoundTrip(t *testing.T) {
	// A bridge network and checks make Nomad add its implicit constraints
	// to the group (simulateNomad does too); they must not read back.
	s := placedSpec()
	if errs := Validate(s); len(errs) > 0 {
		t.Fatalf("test spec is invalid: %+v", errs)
	}
	job := BuildJob(s, 1)
	if len(job.Constraints) != 1 || job.Constraints[0].LTarget != PinTarget {
		t.Fatalf("job-level constraints = %+v, want only berth's pin", job.Constraints)
	}
	g := job.TaskGroups[0]
	if *g.Name != "shop" || len(g.Constraints) != len(s.Placement.Constraints) || len(g.Affinities) != 3 || len(g.Spreads) != 2 {
		t.Fatalf("group %q has %d constraints, %d affinities, %d spreads", *g.Name, len(g.Constraints), len(g.Affinities), len(g.Spreads))
	}
	got, unsupported := readBack(simulateNomad(t, job), s)
	if len(unsupported) > 0 {
		t.Errorf("unsupported = %q", unsupported)
	}
	if want := Normalize(s); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs:\n%s", strings.Join(Diff(want, got), "\n"))
	}
	if got.PinNode != s.PinNode {
		t.Errorf("pin read back as %q", got.PinNode)
	}
	if !slices.Contains(got.Placement.Constraints, Constraint{Attribute: PinTarget, Operator: "=", Value: "a-user-pin"}) {
		t.Errorf("the user's own ${node.unique.id} constraint was lost: %+v", got.Placement.Constraints)
	}
}

func TestPlacementOrderAndDefaultsAreNoDifference(t *testing.T) {
	a := placedSpec()
	b := placedSpec()
	slices.Reverse(b.Placement.Constraints)
	slices.Reverse(b.Placement.Affinities)
	slices.Reverse(b.Placement.Spreads)
	slices.Reverse(b.Placement.Spreads[1].Targets)
	b.Placement.Constraints[len(b.Placement.Constraints)-1].Operator = "=" // was unset
	b.Placement.Affinities[0].Weight = DefaultWeight                       // was unset
	b.Placement.Constraints = append(b.Placement.Constraints, Constraint{Attribute: "${meta.disk}", Operator: "==", Value: "ssd"})
	if d := Diff(a, b); len(d) > 0 {
		t.Errorf("Diff = %q, want none", d)
	}
	b.Placement.Constraints[len(b.Placement.Constraints)-2].Value = "hdd"
	d := Diff(a, b)
	if len(d) != 1 || !strings.HasPrefix(d[0], "placement.constraints: ") {
		t.Errorf("Diff = %q, want one line naming constraints", d)
	}
	c := placedSpec()
	c.Group = "other"
	if d := Diff(a, c); !reflect.DeepEqual(d, []string{`group: "shop" -> "other"`}) {
		t.Errorf("Diff = %q", d)
	}
	if d := Diff(minimalSpec(), func() Spec { s := minimalSpec(); s.Group = GroupName; return s }()); len(d) > 0 {
		t.Errorf("an unset group differs from %q: %q", GroupName, d)
	}
}

// TestJobLevelPlacementIsRead: a hand-written job's job-level placement
// merges with the group's; its ${node.unique.id} constraint is the
// author's, not a reservation pin, and its group may have any name.
func TestJobLevelPlacementIsRead(t *testing.T) {
	s := minimalSpec()
	job := simulateNomad(t, BuildJob(s, 1))
	delete(job.Meta, MetaKind)
	job.TaskGroups[0].Name = ptr("web")
	job.Constraints = []*api.Constraint{
		{LTarget: PinTarget, Operand: "=", RTarget: "n1"},
		{LTarget: "${meta.disk}", Operand: "=", RTarget: "ssd"},
	}
	job.Affinities = []*api.Affinity{{LTarget: "${meta.rack}", Operand: "=", RTarget: "r1", Weight: ptr(int8(50))}}
	job.Spreads = []*api.Spread{{Attribute: "${meta.rack}", Weight: ptr(int8(50))}}
	job.TaskGroups[0].Constraints = append(job.TaskGroups[0].Constraints,
		&api.Constraint{LTarget: "${meta.disk}", Operand: "=", RTarget: "ssd"}, // also on the job
		&api.Constraint{LTarget: "${attr.kernel.name}", Operand: "is", RTarget: "linux"})
	got, unsupported := readBack(job, s)
	if len(unsupported) > 0 {
		t.Fatalf("unsupported = %q", unsupported)
	}
	want := s
	want.Group = "web"
	want.Placement.Constraints = []Constraint{
		{Attribute: PinTarget, Value: "n1"},
		{Attribute: "${meta.disk}", Value: "ssd"},
		{Attribute: "${attr.kernel.name}", Value: "linux"},
	}
	want.Placement.Affinities = []Affinity{{Attribute: "${meta.rack}", Value: "r1"}}
	want.Placement.Spreads = []Spread{{Attribute: "${meta.rack}"}}
	if d := Diff(want, got); len(d) > 0 {
		t.Errorf("Diff = %q", d)
	}
	if got.PinNode != "" {
		t.Errorf("a hand-written job's constraint was read as berth's pin %q", got.PinNode)
	}
}

func TestValidatePlacement(t *testing.T) {
	c := func(attr, op, value string) func(*Spec) {
		return func(s *Spec) { s.Placement.Constraints = []Constraint{{Attribute: attr, Operator: op, Value: value}} }
	}
	a := func(attr, op, value string) func(*Spec) {
		return func(s *Spec) {
			s.Placement.Affinities = []Affinity{{Attribute: attr, Operator: op, Value: value, Weight: 10}}
		}
	}
	targets := func(ts ...SpreadTarget) func(*Spec) {
		return func(s *Spec) { s.Placement.Spreads = []Spread{{Attribute: "${meta.rack}", Targets: ts}} }
	}
	tests := []struct {
		name    string
		mutate  func(*Spec)
		field   string // attribute within the element; "" for the element, "-" for the set
		summary string // "" = valid
	}{
		{"plain equality", c("${meta.a}", "", "x"), "", ""},
		{"equality without value", c("${meta.a}", "=", ""), "value", "Invalid constraint"},
		{"order without value", c("${meta.a}", ">=", ""), "value", "Invalid constraint"},
		{"missing attribute", c("", "=", "x"), "attribute", "Invalid constraint"},
		{"distinct_hosts without attribute or value", c("", "distinct_hosts", ""), "", ""},
		{"distinct_hosts true", c("", "distinct_hosts", "true"), "", ""},
		{"distinct_hosts false", c("", "distinct_hosts", "false"), "", ""},
		{"distinct_hosts yes", c("", "distinct_hosts", "yes"), "value", "Invalid constraint"},
		{"distinct_hosts 1", c("", "distinct_hosts", "1"), "value", "Invalid constraint"},
		{"distinct_property without value", c("${meta.rack}", "distinct_property", ""), "", ""},
		{"distinct_property 3", c("${meta.rack}", "distinct_property", "3"), "", ""},
		{"distinct_property 0", c("${meta.rack}", "distinct_property", "0"), "value", "Invalid constraint"},
		{"distinct_property -1", c("${meta.rack}", "distinct_property", "-1"), "value", "Invalid constraint"},
		{"distinct_property two", c("${meta.rack}", "distinct_property", "two"), "value", "Invalid constraint"},
		{"distinct_property 1.5", c("${meta.rack}", "distinct_property", "1.5"), "value", "Invalid constraint"},
		{"distinct_property without attribute", c("", "distinct_property", "1"), "attribute", "Invalid constraint"},
		{"bad regexp", c("${meta.a}", "regexp", "a("), "value", "Invalid constraint"},
		{"bad version", c("${attr.nomad.version}", "version", ">= one"), "value", "Invalid constraint"},
		{"pessimistic version", c("${attr.nomad.version}", "version", "~> 1.2"), "", ""},
		{"bad semver", c("${attr.nomad.version}", "semver", ">= 1.x"), "value", "Invalid constraint"},
		{"semver has no ~>", c("${attr.nomad.version}", "semver", "~> 1.2.0"), "value", "Invalid constraint"},
		{"semver list", c("${attr.nomad.version}", "semver", ">= 1.2.0, < 2.0.0-beta.1"), "", ""},
		{"set_contains without value", c("${meta.f}", "set_contains", ""), "value", "Invalid constraint"},
		{"set_contains_all without value", c("${meta.f}", "set_contains_all", ""), "value", "Invalid constraint"},
		{"set_contains_any without value", c("${meta.f}", "set_contains_any", ""), "value", "Invalid constraint"},
		{"is_set with value", c("${meta.f}", "is_set", "x"), "value", "Invalid constraint"},
		{"is_not_set", c("${meta.f}", "is_not_set", ""), "", ""},
		{"unknown operator left to the schema", c("${meta.f}", "~", ""), "", ""},
		{"alias operator", c("${meta.f}", "is", "x"), "", ""},
		{"duplicate constraint once defaulted", func(s *Spec) {
			s.Placement.Constraints = []Constraint{{Attribute: "${meta.a}", Value: "x"}, {Attribute: "${meta.a}", Operator: "=", Value: "x"}}
		}, "", "Duplicate constraint"},
		{"affinity", a("${meta.a}", "", "x"), "", ""},
		{"affinity without attribute", a("", "=", "x"), "attribute", "Invalid affinity"},
		{"affinity without value", a("${meta.a}", "<", ""), "value", "Invalid affinity"},
		{"affinity bad regexp", a("${meta.a}", "regexp", "["), "value", "Invalid affinity"},
		{"affinity bad semver", a("${meta.a}", "semver", "1.x"), "value", "Invalid affinity"},
		{"affinity operator left to the schema", a("${meta.a}", "distinct_hosts", ""), "", ""},
		{"duplicate affinity once defaulted", func(s *Spec) {
			s.Placement.Affinities = []Affinity{{Attribute: "${meta.a}", Value: "x"}, {Attribute: "${meta.a}", Value: "x", Weight: 50}}
		}, "", "Duplicate affinity"},
		{"spread without targets", targets(), "", ""},
		{"spread targets add up to 100", targets(SpreadTarget{"a", 60}, SpreadTarget{"b", 40}), "", ""},
		{"spread targets above 100", targets(SpreadTarget{"a", 60}, SpreadTarget{"b", 41}), "targets", "Invalid spread targets"},
		{"spread target twice", targets(SpreadTarget{"a", 10}, SpreadTarget{"a", 20}), "targets", "Duplicate spread target"},
		{"spread without attribute", func(s *Spec) { s.Placement.Spreads = []Spread{{Weight: 10}} }, "attribute", "Invalid spread"},
		{"constraint on a system job", func(s *Spec) {
			s.Type, s.Replicas = TypeSystem, nil
			s.Placement.Constraints = []Constraint{{Attribute: "${meta.a}", Value: "x"}}
		}, "", ""},
		{"affinity on a system job", func(s *Spec) {
			s.Type, s.Replicas = TypeSystem, nil
			s.Placement.Affinities = []Affinity{{Attribute: "${meta.a}", Value: "x"}}
		}, "-", "Affinities on a system job"},
		{"spread on a system job", func(s *Spec) {
			s.Type, s.Replicas = TypeSystem, nil
			s.Placement.Spreads = []Spread{{Attribute: "${meta.a}"}}
		}, "-", "Spreads on a system job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := minimalSpec()
			tt.mutate(&s)
			errs := Validate(s)
			if tt.summary == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected errors %+v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %+v", len(errs), errs)
			}
			e := errs[0]
			if e.Summary != tt.summary || e.Detail == "" {
				t.Errorf("error %q (%q), want summary %q with a detail", e.Summary, e.Detail, tt.summary)
			}
			if tt.field == "-" { // the whole set
				if len(e.Path) != 2 || e.Path[0] != "placement" {
					t.Errorf("path = %v, want placement.<set>", e.Path)
				}
				return
			}
			// The path names the set, the element as configured, then the field.
			if len(e.Path) < 3 || e.Path[0] != "placement" || !slices.Contains([]any{"constraints", "affinities", "spreads"}, e.Path[1]) {
				t.Fatalf("path = %v", e.Path)
			}
			wantLen := 3
			if tt.field != "" {
				wantLen = 4
			}
			if len(e.Path) != wantLen || (tt.field != "" && e.Path[3] != tt.field) {
				t.Errorf("path = %v, want the element then %q", e.Path, tt.field)
			}
		})
	}
}

// FuzzPlacementRoundTrip: whatever placement Validate accepts survives
// BuildJob, Nomad and SpecFromJob as Normalize says.
func FuzzPlacementRoundTrip(f *testing.F) {
	f.Add("${meta.a}", "=", "x", "${meta.b}", "regexp", "^a", int8(20), "${meta.c}", int8(30), "v", uint8(40))
	f.Add("", "distinct_hosts", "", "${meta.b}", "", "y", int8(-5), "${node.datacenter}", int8(0), "dc1", uint8(100))
	f.Fuzz(func(t *testing.T, ca, co, cv, aa, ao, av string, aw int8, sa string, sw int8, tv string, tp uint8) {
		s := minimalSpec()
		s.Placement.Constraints = []Constraint{{Attribute: ca, Operator: co, Value: cv}}
		s.Placement.Affinities = []Affinity{{Attribute: aa, Operator: ao, Value: av, Weight: int(aw)}}
		s.Placement.Spreads = []Spread{{Attribute: sa, Weight: int(sw), Targets: []SpreadTarget{{Value: tv, Percent: int(tp)}}}}
		// Terraform strings are UTF-8; the schema checks operators, weights
		// and percents.
		for _, str := range []string{ca, co, cv, aa, ao, av, sa, tv} {
			if !utf8.ValidString(str) {
				return
			}
		}
		if !slices.Contains(ConstraintOperators(), canonicalOperator(co)) || !slices.Contains(AffinityOperators(), canonicalOperator(ao)) ||
			aw < -100 || aw > 100 || sw < 0 || sw > 100 || tp > 100 {
			return
		}
		if len(Validate(s)) > 0 {
			return
		}
		got, unsupported := readBack(simulateNomad(t, BuildJob(s, 1)), s)
		if len(unsupported) > 0 {
			t.Fatalf("unsupported = %q", unsupported)
		}
		if want := Normalize(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip differs:\n%s", strings.Join(Diff(want, got), "\n"))
		}
	})
}
