// Package schemacurve measures how Terraform core's CPU per resource on a
// no-change refresh plan grows with the shape and size of a resource's
// schema. It holds a synthetic provider (source berthhq/curve) whose one
// resource, curve_thing, has a schema chosen by the CURVE_SHAPE environment
// variable, and the code that writes configurations for it and measures
// Terraform. The driver is cmd/schemacurve; RESULTS.md has the findings.
package schemacurve

import (
	"fmt"
	"strconv"
	"strings"
)

// EnvShape carries a Shape to the provider process.
const EnvShape = "CURVE_SHAPE"

// Shape is the schema of curve_thing beside its computed id. Every leaf is
// an optional string (or list/map of strings); containers hold K leaves.
type Shape struct {
	Attrs    int  // top-level string attributes
	Single   int  // single-nested attributes
	List     int  // list-nested attributes
	Set      int  // set-nested attributes
	Map      int  // map-nested attributes
	Blocks   int  // list-nested blocks
	SBlocks  int  // single-nested blocks
	Lists    int  // list(string) attributes
	Maps     int  // map(string) attributes
	K        int  // string leaves per container
	Wrap     int  // extra single-nested levels around each container
	Computed bool // leaves are optional+computed instead of optional
	Quiet    bool // not schema: the provider turns its SDK's trace logs off (see Serve)
}

var shapeKeys = []string{"attrs", "single", "list", "set", "map", "blocks", "sblocks", "lists", "maps", "k", "wrap", "computed", "quiet"}

func (s *Shape) field(key string) *int {
	switch key {
	case "attrs":
		return &s.Attrs
	case "single":
		return &s.Single
	case "list":
		return &s.List
	case "set":
		return &s.Set
	case "map":
		return &s.Map
	case "blocks":
		return &s.Blocks
	case "sblocks":
		return &s.SBlocks
	case "lists":
		return &s.Lists
	case "maps":
		return &s.Maps
	case "k":
		return &s.K
	case "wrap":
		return &s.Wrap
	}
	return nil
}

func (s *Shape) flag(key string) *bool {
	switch key {
	case "computed":
		return &s.Computed
	case "quiet":
		return &s.Quiet
	}
	return nil
}

// String is the form ParseShape reads: comma-separated key=value pairs,
// zero fields left out, e.g. "single=10,k=10".
func (s Shape) String() string {
	var parts []string
	for _, k := range shapeKeys {
		if b := s.flag(k); b != nil {
			if *b {
				parts = append(parts, k+"=1")
			}
			continue
		}
		if v := *s.field(k); v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		}
	}
	return strings.Join(parts, ",")
}

// ParseShape reads Shape.String's form.
func ParseShape(str string) (Shape, error) {
	var s Shape
	for _, kv := range strings.Split(str, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return s, fmt.Errorf("shape %q: bad pair %q", str, kv)
		}
		if b := s.flag(k); b != nil {
			*b = n != 0
			continue
		}
		f := s.field(k)
		if f == nil {
			return s, fmt.Errorf("shape %q: unknown key %q", str, k)
		}
		*f = n
	}
	if s.Containers() > 0 && s.K == 0 {
		return s, fmt.Errorf("shape %q: containers need k", str)
	}
	return s, nil
}

// Containers is the number of nested attributes and blocks.
func (s Shape) Containers() int { return s.Single + s.List + s.Set + s.Map + s.Blocks + s.SBlocks }

// Leaves is the number of leaf attributes (a list or map of strings counts
// as one).
func (s Shape) Leaves() int { return s.Attrs + s.Lists + s.Maps + s.K*s.Containers() }

// kind of a top-level member.
type kind int

const (
	kString kind = iota
	kList        // list(string)
	kMap         // map(string)
	kSingle
	kListNested
	kSetNested
	kMapNested
	kBlock
	kSBlock
)

// member is one top-level attribute or block.
type member struct {
	name string
	kind kind
}

// members lists the top-level members in a fixed order; leaves are numbered
// in this order (a container's K leaves in a row).
func (s Shape) members() []member {
	var ms []member
	add := func(prefix string, n int, k kind) {
		for i := range n {
			ms = append(ms, member{fmt.Sprintf("%s%d", prefix, i), k})
		}
	}
	add("s", s.Attrs, kString)
	add("ls", s.Lists, kList)
	add("ms", s.Maps, kMap)
	add("n", s.Single, kSingle)
	add("l", s.List, kListNested)
	add("t", s.Set, kSetNested)
	add("m", s.Map, kMapNested)
	add("b", s.Blocks, kBlock)
	add("sb", s.SBlocks, kSBlock)
	return ms
}

// isContainer reports whether k holds K leaves.
func (k kind) isContainer() bool { return k >= kSingle }

// filled reports whether leaf i of a resource is set when a fraction fill
// of the leaves is: the set ones are spread evenly over the leaves.
func filled(i int, fill float64) bool {
	return int(float64(i+1)*fill+1e-9) > int(float64(i)*fill+1e-9)
}

// Config returns a configuration of n curve_thing resources with a fraction
// fill of their leaves set: spread evenly over the leaves, or when packed
// the first ones in order (so the later containers are null). A container
// is written only when one of its leaves is set.
func (s Shape) Config(n int, fill float64, packed bool) string {
	set := func(i int) bool { return filled(i, fill) }
	if packed {
		set = func(i int) bool { return float64(i) < fill*float64(s.Leaves())-1e-9 }
	}
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    curve = { source = \"berthhq/curve\" }\n  }\n}\n\n")
	fmt.Fprintf(&b, "resource \"curve_thing\" \"x\" {\n  count = %d\n", n)
	leaf := 0
	for _, m := range s.members() {
		if !m.kind.isContainer() {
			if set(leaf) {
				switch m.kind {
				case kString:
					fmt.Fprintf(&b, "  %s = \"v${count.index}\"\n", m.name)
				case kList:
					fmt.Fprintf(&b, "  %s = [\"v${count.index}\"]\n", m.name)
				case kMap:
					fmt.Fprintf(&b, "  %s = { k = \"v${count.index}\" }\n", m.name)
				}
			}
			leaf++
			continue
		}
		var obj []string
		for j := range s.K {
			if set(leaf) {
				obj = append(obj, fmt.Sprintf("a%d = \"v${count.index}\"", j))
			}
			leaf++
		}
		if len(obj) == 0 {
			continue
		}
		// One attribute a line, so the same text is a block body too.
		body := "{\n    " + strings.Join(obj, "\n    ") + "\n  }"
		for range s.Wrap {
			if m.kind == kBlock || m.kind == kSBlock {
				body = "{\n    w " + body + "\n  }"
			} else {
				body = "{\n    w = " + body + "\n  }"
			}
		}
		switch m.kind {
		case kSingle:
			fmt.Fprintf(&b, "  %s = %s\n", m.name, body)
		case kListNested, kSetNested:
			fmt.Fprintf(&b, "  %s = [%s]\n", m.name, body)
		case kMapNested:
			fmt.Fprintf(&b, "  %s = { k = %s }\n", m.name, body)
		case kBlock, kSBlock:
			fmt.Fprintf(&b, "  %s %s\n", m.name, body)
		}
	}
	b.WriteString("}\n")
	return b.String()
}
