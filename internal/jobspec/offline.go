package jobspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// What berth checks of an HCL2 jobspec without a cluster, at validate:
// that it is HCL at all, and that its variables match its variable
// blocks (none given that it does not declare, none it requires left
// out), as `nomad job run` checks -var values. Everything else (which
// blocks and attributes a job has) is the cluster's parser's to say, at
// plan: a newer cluster knows blocks an older one does not.

// variableBlock is a variable the jobspec declares.
type variableBlock struct {
	line       int
	hasDefault bool
	// asString is true when a value for it is a string, as -var gives
	// it; otherwise the value is an HCL expression (a number, a list).
	asString bool
}

var rootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "variable", LabelNames: []string{"name"}}}}

var variableSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "type"}}}

// declaredVariables reads the jobspec's variable blocks.
func declaredVariables(source string) (map[string]variableBlock, error) {
	p := hclparse.NewParser()
	var file *hcl.File
	var diags hcl.Diagnostics
	if hclJSONSyntax(source) {
		file, diags = p.ParseJSON([]byte(source), parsePath)
	} else {
		file, diags = p.ParseHCL([]byte(source), parsePath)
	}
	if err := firstError(diags); err != nil {
		return nil, err
	}
	content, _, diags := file.Body.PartialContent(rootSchema)
	if err := firstError(diags); err != nil {
		return nil, err
	}
	out := map[string]variableBlock{}
	for _, b := range content.Blocks {
		attrs, _, diags := b.Body.PartialContent(variableSchema)
		if err := firstError(diags); err != nil {
			return nil, err
		}
		v := variableBlock{line: b.DefRange.Start.Line, asString: true}
		_, v.hasDefault = attrs.Attributes["default"]
		if t, ok := attrs.Attributes["type"]; ok {
			name := hcl.ExprAsKeyword(t.Expr)
			v.asString = name == "string" || name == "any"
		}
		out[b.Labels[0]] = v
	}
	return out, nil
}

// CheckOffline checks what berth can of s without a cluster: JSON is
// decoded whole (berth reads it itself); HCL2 is checked for syntax and
// its variables. A failure is a *ParseError.
func CheckOffline(s Spec) error {
	switch s.FormatOf() {
	case FormatJSON:
		raw, err := jobObject(s.Source)
		if err != nil {
			return err
		}
		if _, _, err := splitJob(raw); err != nil {
			return &ParseError{Message: err.Error()}
		}
		return nil
	case FormatHCL2:
		declared, err := declaredVariables(s.Source)
		if err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
			if _, ok := declared[name]; !ok {
				return &ParseError{Message: fmt.Sprintf("variables sets %q, which the jobspec declares no variable block for", name)}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(declared)) {
			v := declared[name]
			if _, given := s.Variables[name]; !given && !v.hasDefault {
				return &ParseError{Line: v.line, Column: 1,
					Message: fmt.Sprintf("variable %q has no default, and variables gives it no value", name)}
			}
		}
		return nil
	}
	return &ParseError{Message: fmt.Sprintf("unknown format %q: use %q or %q", s.Format, FormatHCL2, FormatJSON)}
}

// VariablesFile writes s's variables as the variables file Nomad's parse
// API takes, each value as `nomad job run -var` would give it: a string
// for a variable of type string (or none), an HCL expression otherwise.
func VariablesFile(s Spec) (string, error) {
	if len(s.Variables) == 0 {
		return "", nil
	}
	declared, err := declaredVariables(s.Source)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
		value := s.Variables[name]
		if v, ok := declared[name]; !ok || v.asString {
			value = hclString(value)
		}
		fmt.Fprintf(&b, "%s = %s\n", name, value)
	}
	return b.String(), nil
}

// hclString is v as an HCL quoted string that is taken literally: JSON's
// escapes are HCL's, and template sequences are escaped.
func hclString(v string) string {
	b, _ := json.Marshal(v)
	s := strings.ReplaceAll(string(b), "${", "$${")
	return strings.ReplaceAll(s, "%{", "%%{")
}

func firstError(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		pe := &ParseError{Message: strings.TrimSuffix(d.Summary+"; "+d.Detail, "; ")}
		if d.Subject != nil {
			pe.Line, pe.Column = d.Subject.Start.Line, d.Subject.Start.Column
		}
		return pe
	}
	return nil
}
