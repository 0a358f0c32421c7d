package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// envLookup reads the process environment.
func envLookup(key string) (string, bool) { return os.LookupEnv(key) }

// resolveConfig merges the provider block with the environment (the block
// wins) and checks what only becomes visible after the merge.
func resolveConfig(_ context.Context, m providerModel, lookup func(string) (string, bool)) (nomadclient.Config, diag.Diagnostics) {
	var diags diag.Diagnostics
	pick := func(attrName string, v types.String, env string) string {
		if v.IsUnknown() {
			diags.AddAttributeError(path.Root(attrName), "Provider setting not known yet",
				fmt.Sprintf("%q depends on a value that is only known after apply, but berth needs it to configure "+
					"its Nomad client. Use a value known at plan time, or set the %s environment variable.", attrName, env))
			return ""
		}
		if !v.IsNull() {
			return v.ValueString()
		}
		if env == "" {
			return ""
		}
		s, _ := lookup(env)
		return s
	}

	cfg := nomadclient.Config{
		Address:       pick("address", m.Address, "NOMAD_ADDR"),
		Region:        pick("region", m.Region, "NOMAD_REGION"),
		Namespace:     pick("namespace", m.Namespace, "NOMAD_NAMESPACE"),
		Token:         pick("token", m.Token, "NOMAD_TOKEN"),
		CAFile:        pick("ca_file", m.CAFile, "NOMAD_CACERT"),
		CAPEM:         pick("ca_pem", m.CAPEM, ""),
		CertFile:      pick("cert_file", m.CertFile, "NOMAD_CLIENT_CERT"),
		CertPEM:       pick("cert_pem", m.CertPEM, ""),
		KeyFile:       pick("key_file", m.KeyFile, "NOMAD_CLIENT_KEY"),
		KeyPEM:        pick("key_pem", m.KeyPEM, ""),
		TLSServerName: pick("tls_server_name", m.TLSServerName, "NOMAD_TLS_SERVER_NAME"),
	}
	// A PEM in the block beats a file from the environment.
	if cfg.CAPEM != "" && m.CAFile.IsNull() {
		cfg.CAFile = ""
	}
	if cfg.CertPEM != "" && m.CertFile.IsNull() {
		cfg.CertFile = ""
	}
	if cfg.KeyPEM != "" && m.KeyFile.IsNull() {
		cfg.KeyFile = ""
	}

	switch {
	case m.SkipVerify.IsUnknown():
		diags.AddAttributeError(path.Root("skip_verify"), "Provider setting not known yet",
			"\"skip_verify\" depends on a value that is only known after apply. Use a literal.")
	case !m.SkipVerify.IsNull():
		cfg.SkipVerify = m.SkipVerify.ValueBool()
	default:
		if s, ok := lookup("NOMAD_SKIP_VERIFY"); ok && s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				diags.AddAttributeError(path.Root("skip_verify"), "Invalid NOMAD_SKIP_VERIFY",
					fmt.Sprintf("NOMAD_SKIP_VERIFY is %q; use true or false.", s))
			}
			cfg.SkipVerify = b
		}
	}

	if t := pick("request_timeout", m.RequestTimeout, "BERTH_REQUEST_TIMEOUT"); t != "" {
		d, err := parseRequestTimeout(t)
		if err != nil {
			src := "request_timeout"
			if m.RequestTimeout.IsNull() {
				src = "BERTH_REQUEST_TIMEOUT"
			}
			diags.AddAttributeError(path.Root("request_timeout"), "Invalid request timeout",
				fmt.Sprintf("%s is %q: %v.", src, t, err))
		}
		cfg.RequestTimeout = d
	}

	if m.Headers.IsUnknown() {
		diags.AddAttributeError(path.Root("headers"), "Provider setting not known yet",
			"\"headers\" depends on a value that is only known after apply. Use values known at plan time.")
	} else if !m.Headers.IsNull() {
		cfg.Headers = map[string]string{}
		for k, v := range m.Headers.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				diags.AddAttributeError(path.Root("headers").AtMapKey(k), "Provider setting not known yet",
					"Header values must be known at plan time.")
				continue
			}
			cfg.Headers[k] = s.ValueString()
		}
	}
	if diags.HasError() {
		return cfg, diags
	}

	if cfg.Address != "" {
		if err := nomadclient.ValidateAddress(cfg.Address); err != nil {
			src := "the provider's \"address\""
			if m.Address.IsNull() {
				src = "NOMAD_ADDR"
			}
			diags.AddAttributeError(path.Root("address"), "Invalid Nomad address",
				fmt.Sprintf("The Nomad address from %s is invalid: %v. Use a URL such as http://127.0.0.1:4646.", src, err))
		}
	}
	hasCert, hasKey := cfg.CertFile != "" || cfg.CertPEM != "", cfg.KeyFile != "" || cfg.KeyPEM != ""
	if hasCert != hasKey {
		p, msg := path.Root("cert_file"), "A client certificate is set (cert_file, cert_pem or NOMAD_CLIENT_CERT) but no key: set key_file, key_pem or NOMAD_CLIENT_KEY."
		if hasKey {
			p, msg = path.Root("key_file"), "A client key is set (key_file, key_pem or NOMAD_CLIENT_KEY) but no certificate: set cert_file, cert_pem or NOMAD_CLIENT_CERT."
		}
		diags.AddAttributeError(p, "Incomplete client certificate", msg)
	}
	return cfg, diags
}

// Bounds of request_timeout: below a second a healthy but busy leader
// fails spuriously; above an hour a hang is not bounded in any useful way.
const (
	minRequestTimeout = time.Second
	maxRequestTimeout = time.Hour
)

// parseRequestTimeout reads a request_timeout duration and checks its range.
func parseRequestTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration; use a value such as \"30s\" or \"2m\"")
	}
	if d < minRequestTimeout || d > maxRequestTimeout {
		return 0, fmt.Errorf("must be between %s and %s", minRequestTimeout, maxRequestTimeout)
	}
	return d, nil
}

// requestTimeoutValidator checks request_timeout at validate time.
type requestTimeoutValidator struct{}

var _ validator.String = requestTimeoutValidator{}

func (requestTimeoutValidator) Description(context.Context) string {
	return fmt.Sprintf("a duration between %s and %s", minRequestTimeout, maxRequestTimeout)
}

func (v requestTimeoutValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (requestTimeoutValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseRequestTimeout(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid request timeout",
			fmt.Sprintf("request_timeout is %q: %v.", req.ConfigValue.ValueString(), err))
	}
}

// addressValidator accepts only absolute http(s) URLs, at validate time.
type addressValidator struct{}

var _ validator.String = addressValidator{}

func (addressValidator) Description(context.Context) string {
	return "must be an http:// or https:// URL"
}

func (v addressValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (addressValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := nomadclient.ValidateAddress(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Nomad address",
			fmt.Sprintf("The Nomad address %v. Use a URL such as http://127.0.0.1:4646.", err))
	}
}

// clientCertKeyValidator rejects a client certificate without a key (and
// the reverse) in the provider block, at validate time.
type clientCertKeyValidator struct{}

var _ provider.ConfigValidator = clientCertKeyValidator{}

func (clientCertKeyValidator) Description(context.Context) string {
	return "a client certificate and its key must be set together"
}

func (v clientCertKeyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (clientCertKeyValidator) ValidateProvider(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	set := func(name string) (isSet, unknown bool) {
		var v attr.Value
		if d := req.Config.GetAttribute(ctx, path.Root(name), &v); d.HasError() || v == nil {
			return false, false
		}
		return !v.IsNull() && !v.IsUnknown(), v.IsUnknown()
	}
	certFile, u1 := set("cert_file")
	certPEM, u2 := set("cert_pem")
	keyFile, u3 := set("key_file")
	keyPEM, u4 := set("key_pem")
	if u1 || u2 || u3 || u4 {
		return
	}
	// The environment can complete the pair; Configure checks the merge.
	_, certEnv := envLookup("NOMAD_CLIENT_CERT")
	_, keyEnv := envLookup("NOMAD_CLIENT_KEY")
	hasCert, hasKey := certFile || certPEM || certEnv, keyFile || keyPEM || keyEnv
	switch {
	case hasCert && !hasKey:
		at := path.Root("cert_file")
		if certPEM {
			at = path.Root("cert_pem")
		}
		resp.Diagnostics.AddAttributeError(at, "Client certificate without a key",
			"A client certificate needs its private key: set key_file or key_pem (or NOMAD_CLIENT_KEY).")
	case hasKey && !hasCert:
		at := path.Root("key_file")
		if keyPEM {
			at = path.Root("key_pem")
		}
		resp.Diagnostics.AddAttributeError(at, "Client key without a certificate",
			"A client key needs its certificate: set cert_file or cert_pem (or NOMAD_CLIENT_CERT).")
	}
}
