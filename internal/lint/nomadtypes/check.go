// Package nomadtypes finds Nomad API types above nomadclient: any
// expression or declaration in a package's non-test files whose type
// mentions a type of github.com/hashicorp/nomad/api, aliases included.
// depguard only sees import paths, so a type alias in nomadclient
// (type Job = api.Job) or a value returned by a client method slips past
// it; this check works on types.
package nomadtypes

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// APIPath is the package whose types must stay below the Terraform layer.
const APIPath = "github.com/hashicorp/nomad/api"

// Finding is one place that uses a Nomad API type.
type Finding struct {
	Pos  token.Position
	What string // the expression's type, as Go prints it
}

func (f Finding) String() string { return fmt.Sprintf("%s: uses Nomad API type %s", f.Pos, f.What) }

// Check loads the packages matching patterns (from dir) and returns every
// place in their non-test files whose type mentions an APIPath type, one
// per source line.
func Check(dir string, patterns ...string) ([]Finding, error) {
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedFiles | packages.NeedTypes |
		packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedImports | packages.NeedDeps}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading %v: %s", patterns, strings.Join(errs, "; "))
	}
	seen := map[string]bool{}
	var out []Finding
	add := func(p *packages.Package, pos token.Pos, t types.Type) {
		if t == nil || !mentionsAPI(t, map[types.Type]bool{}) {
			return
		}
		at := p.Fset.Position(pos)
		if strings.HasSuffix(at.Filename, "_test.go") {
			return // tests read Nomad through the API client to assert what it holds
		}
		key := fmt.Sprintf("%s:%d", at.Filename, at.Line)
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, Finding{Pos: at, What: types.TypeString(t, nil)})
	}
	for _, p := range pkgs {
		for expr, tv := range p.TypesInfo.Types {
			add(p, expr.Pos(), tv.Type)
		}
		for id, obj := range p.TypesInfo.Defs {
			if obj != nil {
				add(p, id.Pos(), obj.Type())
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Line < b.Line
	})
	return out, nil
}

// mentionsAPI reports whether t is, or is built from, a type declared in
// APIPath (an alias resolves to the type it names).
func mentionsAPI(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == APIPath {
			return true
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				if mentionsAPI(args.At(i), seen) {
					return true
				}
			}
		}
		return false // a named type of another package hides its fields
	case *types.Pointer:
		return mentionsAPI(t.Elem(), seen)
	case *types.Slice:
		return mentionsAPI(t.Elem(), seen)
	case *types.Array:
		return mentionsAPI(t.Elem(), seen)
	case *types.Map:
		return mentionsAPI(t.Key(), seen) || mentionsAPI(t.Elem(), seen)
	case *types.Chan:
		return mentionsAPI(t.Elem(), seen)
	case *types.Signature:
		return tupleMentions(t.Params(), seen) || tupleMentions(t.Results(), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if mentionsAPI(t.Field(i).Type(), seen) {
				return true
			}
		}
	case *types.Tuple:
		return tupleMentions(t, seen)
	}
	return false
}

func tupleMentions(t *types.Tuple, seen map[types.Type]bool) bool {
	return t != nil && slices.ContainsFunc(slices.Collect(t.Variables()), func(v *types.Var) bool {
		return mentionsAPI(v.Type(), seen)
	})
}
