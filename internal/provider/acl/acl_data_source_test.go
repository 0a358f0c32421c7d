package acl

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// dataAttrs is the flat attributes state holds for the data source at
// addr.
func dataAttrs(s *terraform.State, addr string) (map[string]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, fmt.Errorf("%s is not in state", addr)
	}
	return rs.Primary.Attributes, nil
}

// setValues is the set of strings attrs holds at name, sorted.
func setValues(attrs map[string]string, name string) []string {
	var out []string
	for k, v := range attrs {
		if strings.HasPrefix(k, name+".") && k != name+".#" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// compareAttrs requires attrs to hold want; a wanted "" is an attribute
// that is null (absent from the flat attributes) or empty.
func compareAttrs(addr string, attrs, want map[string]string) error {
	for k, v := range want {
		if attrs[k] != v {
			return fmt.Errorf("%s: %s = %q in state, %q in Nomad", addr, k, attrs[k], v)
		}
	}
	return nil
}

// sorted is a sorted copy of ss.
func sorted(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

// errorSaying matches Terraform's output of an error with this summary
// and a detail that says this, however Terraform wraps its lines.
func errorSaying(summary, detail string) *regexp.Regexp {
	spaced := func(msg string) string {
		words := strings.Fields(msg)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		return strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)Error: ` + spaced(summary) + `\n.*` + spaced(detail))
}

// TestACLTokenDataSource_errorsNeverRepeatTheValue: an accessor ID that
// Nomad's answer repeats (in an error) is replaced, the diagnostics keep
// their attribute path, and nothing else changes.
func TestACLTokenDataSource_errorsNeverRepeatTheValue(t *testing.T) {
	const secret = "6f1c2f4e-33b6-4a0c-9c55-0c2b8f5a1e77"
	var in diag.Diagnostics
	in.AddAttributeError(path.Root("accessor_id"), "Could not read "+secret, "Nomad said: reading ACL token "+secret+": 403")
	in.AddError("Other", "nothing to hide")
	out := withoutValue(in, secret)
	if len(out) != 2 {
		t.Fatalf("got %d diagnostics, want 2", len(out))
	}
	for _, d := range out {
		if strings.Contains(d.Summary()+d.Detail(), secret) {
			t.Errorf("diagnostic %q / %q repeats the value", d.Summary(), d.Detail())
		}
	}
	if wp, ok := out[0].(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(path.Root("accessor_id")) {
		t.Errorf("the first diagnostic lost its path: %#v", out[0])
	}
	if out[1].Summary() != "Other" || out[1].Detail() != "nothing to hide" {
		t.Errorf("an unrelated diagnostic changed: %q / %q", out[1].Summary(), out[1].Detail())
	}
}
