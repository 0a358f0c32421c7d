package nomadclient

import (
	"strings"
	"testing"
)

// The cluster key changes with what selects the cluster (address, region,
// TLS server name) and not with credentials, and shows none of them.
func TestClusterKey(t *testing.T) {
	key := func(cfg Config) string {
		t.Helper()
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c.ClusterKey()
	}
	base := key(Config{Address: "https://nomad.example.com:4646"})
	for name, cfg := range map[string]Config{
		"address":         {Address: "https://nomad-2.example.com:4646"},
		"region":          {Address: "https://nomad.example.com:4646", Region: "eu"},
		"tls server name": {Address: "https://nomad.example.com:4646", TLSServerName: "server.eu.nomad"},
	} {
		if key(cfg) == base {
			t.Errorf("another %s, the same key", name)
		}
	}
	for name, cfg := range map[string]Config{
		"credentials in the address": {Address: "https://ops:s3cret@nomad.example.com:4646"},
		"token":                      {Address: "https://nomad.example.com:4646", Token: "s3cret-token"},
		"headers":                    {Address: "https://nomad.example.com:4646", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		"trailing slash":             {Address: "https://nomad.example.com:4646/"},
	} {
		if got := key(cfg); got != base {
			t.Errorf("%s changed the key", name)
		}
	}
	if strings.Contains(base, "example") || len(base) != 64 {
		t.Errorf("key %q is not a digest", base)
	}
}
