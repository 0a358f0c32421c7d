package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestResolveConfig_environmentFallbackAndPrecedence(t *testing.T) {
	env := envMap(map[string]string{
		"NOMAD_ADDR":            "https://env.example:4646",
		"NOMAD_REGION":          "env-region",
		"NOMAD_NAMESPACE":       "env-ns",
		"NOMAD_TOKEN":           "env-token",
		"NOMAD_TLS_SERVER_NAME": "server.global.nomad",
		"NOMAD_SKIP_VERIFY":     "true",
	})
	cfg, diags := resolveConfig(context.Background(), nullModel(), env)
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	if cfg.Address != "https://env.example:4646" || cfg.Region != "env-region" || cfg.Namespace != "env-ns" ||
		cfg.Token != "env-token" || cfg.TLSServerName != "server.global.nomad" || !cfg.SkipVerify {
		t.Fatalf("environment not applied: %+v", cfg)
	}

	m := nullModel()
	m.Address = types.StringValue("http://cfg.example:4646")
	m.Namespace = types.StringValue("cfg-ns")
	m.SkipVerify = types.BoolValue(false)
	cfg, diags = resolveConfig(context.Background(), m, env)
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	if cfg.Address != "http://cfg.example:4646" || cfg.Namespace != "cfg-ns" || cfg.SkipVerify {
		t.Fatalf("configuration must win over environment: %+v", cfg)
	}
	if cfg.Token != "env-token" {
		t.Fatalf("unset attributes still fall back: %+v", cfg)
	}
}

func TestResolveConfig_badInputs(t *testing.T) {
	cases := []struct {
		name               string
		model              func(m *providerModel)
		env                map[string]string
		wantPath, wantText string
	}{
		{"address from environment is not a URL", nil, map[string]string{"NOMAD_ADDR": "127.0.0.1:4646"}, "address", "NOMAD_ADDR"},
		{"ftp address in configuration", func(m *providerModel) { m.Address = types.StringValue("ftp://nomad:4646") }, nil, "address", "http:// or https://"},
		{"client certificate from environment without a key", nil, map[string]string{"NOMAD_CLIENT_CERT": "/etc/nomad/cli.pem"}, "cert_file", "no key"},
		{"key pem without certificate", func(m *providerModel) { m.KeyPEM = types.StringValue("-----BEGIN PRIVATE KEY-----") }, nil, "key_file", "no certificate"},
		{"skip verify from environment is not a bool", nil, map[string]string{"NOMAD_SKIP_VERIFY": "sometimes"}, "skip_verify", "sometimes"},
		{"request timeout from environment is not a duration", nil, map[string]string{"BERTH_REQUEST_TIMEOUT": "soon"}, "request_timeout", "BERTH_REQUEST_TIMEOUT"},
		{"request timeout zero", func(m *providerModel) { m.RequestTimeout = types.StringValue("0s") }, nil, "request_timeout", "between 1s and 1h0m0s"},
		{"address from environment with credentials is not a URL", nil, map[string]string{"NOMAD_ADDR": "admin:hunter22@nomad:4646"}, "address", "xxxxx@nomad:4646"},
		{"unknown address", func(m *providerModel) { m.Address = types.StringUnknown() }, nil, "address", "only known after apply"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := nullModel()
			if tc.model != nil {
				tc.model(&m)
			}
			_, diags := resolveConfig(context.Background(), m, envMap(tc.env))
			if !diags.HasError() {
				t.Fatal("expected an error")
			}
			var found bool
			for _, d := range diags.Errors() {
				if strings.Contains(d.Detail(), tc.wantText) && strings.Contains(acctest.DiagPath(d), tc.wantPath) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no error at %q mentioning %q: %v", tc.wantPath, tc.wantText, diags)
			}
		})
	}
}

func TestResolveConfig_requestTimeout(t *testing.T) {
	cfg, diags := resolveConfig(context.Background(), nullModel(), envMap(nil))
	if diags.HasError() || cfg.RequestTimeout != 0 {
		t.Fatalf("unset request_timeout: %v, %v; want 0 (the client's default)", cfg.RequestTimeout, diags)
	}
	m := nullModel()
	m.RequestTimeout = types.StringValue("2m")
	cfg, diags = resolveConfig(context.Background(), m, envMap(map[string]string{"BERTH_REQUEST_TIMEOUT": "5s"}))
	if diags.HasError() || cfg.RequestTimeout != 2*time.Minute {
		t.Fatalf("request_timeout = %v (%v), want the configuration's 2m over the environment", cfg.RequestTimeout, diags)
	}
	cfg, _ = resolveConfig(context.Background(), nullModel(), envMap(map[string]string{"BERTH_REQUEST_TIMEOUT": "5s"}))
	if cfg.RequestTimeout != 5*time.Second {
		t.Fatalf("request_timeout = %v, want 5s from BERTH_REQUEST_TIMEOUT", cfg.RequestTimeout)
	}
}

func TestResolveConfig_pemInConfigBeatsFileFromEnvironment(t *testing.T) {
	m := nullModel()
	m.CAPEM = types.StringValue("pem")
	cfg, diags := resolveConfig(context.Background(), m, envMap(map[string]string{"NOMAD_CACERT": "/nope.pem"}))
	if diags.HasError() {
		t.Fatal(diags)
	}
	if cfg.CAFile != "" || cfg.CAPEM != "pem" {
		t.Fatalf("ca_pem should replace NOMAD_CACERT: %+v", cfg)
	}
}

func nullModel() providerModel {
	return providerModel{
		Address: types.StringNull(), Region: types.StringNull(), Namespace: types.StringNull(), Token: types.StringNull(),
		CAFile: types.StringNull(), CAPEM: types.StringNull(), CertFile: types.StringNull(), CertPEM: types.StringNull(),
		KeyFile: types.StringNull(), KeyPEM: types.StringNull(), TLSServerName: types.StringNull(),
		SkipVerify: types.BoolNull(), Headers: types.MapNull(types.StringType), LedgerNS: types.StringNull(),
		SigningKey: types.StringNull(), LeaseDriver: types.StringNull(), RequestTimeout: types.StringNull(),
	}
}

// TestProvider_validateRejectsBadSettings runs the real terraform CLI; the
// errors come from validation, before Configure and before any Nomad call.
func TestProvider_validateRejectsBadSettings(t *testing.T) {
	cases := []struct {
		name   string
		block  string
		expect string
	}{
		{"address not a URL", `address = "nomad.example:4646"`, `(?s)Invalid Nomad address.*must start with http:// or\s+https://`},
		{"address with ftp scheme", `address = "ftp://nomad.example"`, `Invalid Nomad address`},
		{"cert without key", `cert_pem = "-----BEGIN CERTIFICATE-----"`, `Client certificate without a key`},
		{"key without cert", `key_file = "/tmp/key.pem"`, `Client key without a certificate`},
		{"ca_file and ca_pem", "ca_file = \"/tmp/ca.pem\"\nca_pem = \"x\"", `(?s)Invalid Attribute Combination.*ca_pem`},
		{"request_timeout not a duration", `request_timeout = "30"`, `(?s)Invalid request timeout.*not a duration`},
		{"request_timeout too long", `request_timeout = "2h"`, `(?s)Invalid request timeout.*between 1s and\s+1h0m0s`},
		{"request_timeout negative", `request_timeout = "-5s"`, `Invalid request timeout`},
		// The lease reader accepts the timer only under these drivers.
		{"lease_driver not exec or raw_exec", `lease_driver = "docker"`, `(?s)Invalid Attribute Value Match.*lease_driver.*"exec".*"raw_exec"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "provider \"berth\" {\n" + tc.block + "\n}\ndata \"berth_nodes\" \"all\" {}\n",
					ExpectError: regexp.MustCompile(tc.expect),
					PlanOnly:    true,
				}},
			})
		})
	}
}

// TestProvider_unreachableNomad: configuring never contacts Nomad; the
// first call that cannot connect names the address and how to set it.
func TestProvider_unreachableNomad(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "berth" {
  address = "http://127.0.0.1:1"
}
data "berth_nodes" "all" {}
`,
			ExpectError: regexp.MustCompile(`(?s)cannot reach Nomad at\s+http://127.0.0.1:1.*NOMAD_ADDR`),
		}},
	})
}
