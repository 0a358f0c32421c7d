package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// introConfig is a berth_node_intro_token configuration as Terraform sends
// it to ValidateEphemeralResourceConfig: the set attributes, the rest null.
func introConfig(t *testing.T, set map[string]string) *tfprotov6.DynamicValue {
	t.Helper()
	attrs := map[string]tftypes.Type{}
	vals := map[string]tftypes.Value{}
	for _, a := range []string{"ttl", "node_name", "node_pool", "jwt", "expires_at"} {
		attrs[a] = tftypes.String
		vals[a] = tftypes.NewValue(tftypes.String, nil)
		if v, ok := set[a]; ok {
			vals[a] = tftypes.NewValue(tftypes.String, v)
		}
	}
	ty := tftypes.Object{AttributeTypes: attrs}
	dv, err := tfprotov6.NewDynamicValue(ty, tftypes.NewValue(ty, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// Each bad ttl or node_pool is one error at its attribute, at validate
// (no Nomad needed); a good configuration has none.
func TestNodeIntroToken_validate(t *testing.T) {
	srv, err := acctest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		set     map[string]string
		attr    string // "" for no error
		summary string
		detail  string
	}{
		{name: "every attribute", set: map[string]string{"ttl": "15m", "node_name": "edge-1", "node_pool": "edge"}},
		{name: "nothing set", set: nil},
		{name: "one minute", set: map[string]string{"ttl": "1m"}},
		{name: "zero ttl", set: map[string]string{"ttl": "0s"}, attr: "ttl", summary: "Token TTL too short", detail: "leave ttl unset"},
		{name: "negative ttl", set: map[string]string{"ttl": "-5m"}, attr: "ttl", summary: "Token TTL too short", detail: "never expire"},
		{name: "ttl under a minute", set: map[string]string{"ttl": "30s"}, attr: "ttl", summary: "Token TTL too short", detail: "at least 1m0s"},
		{name: "ttl not a duration", set: map[string]string{"ttl": "soon"}, attr: "ttl", summary: "Invalid Time Duration String Value", detail: "soon"},
		{name: "ttl without a unit", set: map[string]string{"ttl": "900"}, attr: "ttl", summary: "Invalid Time Duration String Value", detail: "900"},
		{name: "pool all", set: map[string]string{"node_pool": "all"}, attr: "node_pool", summary: "Invalid node pool", detail: "no node can register"},
		{name: "pool with a slash", set: map[string]string{"node_pool": "a/b"}, attr: "node_pool", summary: "Invalid node pool", detail: "not a node pool name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := srv.ValidateEphemeralResourceConfig(ctx, &tfprotov6.ValidateEphemeralResourceConfigRequest{
				TypeName: "berth_node_intro_token", Config: introConfig(t, tc.set)})
			if err != nil {
				t.Fatal(err)
			}
			var errs []*tfprotov6.Diagnostic
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d)
				}
			}
			if tc.attr == "" {
				for _, d := range errs {
					t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
				}
				return
			}
			if len(errs) != 1 {
				for _, d := range errs {
					t.Logf("error: %s: %s (%v)", d.Summary, d.Detail, d.Attribute)
				}
				t.Fatalf("%d errors, want exactly 1", len(errs))
			}
			d := errs[0]
			if d.Attribute == nil || d.Attribute.String() != tftypes.NewAttributePath().WithAttributeName(tc.attr).String() {
				t.Errorf("error at %v, want %s", d.Attribute, tc.attr)
			}
			if d.Summary != tc.summary || !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("error %q: %q; want %q with %q", d.Summary, d.Detail, tc.summary, tc.detail)
			}
		})
	}
}
