package nomadclient

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// jwksOf is a key set with one (all-zero) Ed25519 key per key ID.
func jwksOf(kids ...string) map[string]any {
	keys := make([]map[string]string, 0, len(kids))
	for _, kid := range kids {
		keys = append(keys, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": kid, "alg": "EdDSA", "use": "sig",
			"x": base64.RawURLEncoding.EncodeToString(make([]byte, ed25519.PublicKeySize))})
	}
	return map[string]any{"keys": keys}
}

// The cluster key changes with what selects the cluster (address, region,
// TLS server name) and with the identity Nomad gave the cluster (its key
// IDs, in any order), and shows none of them.
func TestClusterKey(t *testing.T) {
	kids := []string{"6f1c2a9e-0b7d-4e3a-8c5f-2d9b1e4a7c30", "0a4d1b7e-3c2f-4f9a-b1e8-5c7d9a2e6f14"}
	base := clusterKey("https://nomad.example.com:4646", "", "", kids)
	for name, key := range map[string]string{
		"address":            clusterKey("https://nomad-2.example.com:4646", "", "", kids),
		"region":             clusterKey("https://nomad.example.com:4646", "eu", "", kids),
		"tls server name":    clusterKey("https://nomad.example.com:4646", "", "server.eu.nomad", kids),
		"cluster (key IDs)":  clusterKey("https://nomad.example.com:4646", "", "", []string{"c2b8e5d1-7a94-4f3e-9b06-1d8f2a5c3e77"}),
		"one key ID more":    clusterKey("https://nomad.example.com:4646", "", "", append(kids, "c2b8e5d1-7a94-4f3e-9b06-1d8f2a5c3e77")),
		"no identity at all": clusterKey("https://nomad.example.com:4646", "", "", nil),
	} {
		if key == base {
			t.Errorf("another %s, the same key", name)
		}
	}
	if clusterKey("https://nomad.example.com:4646/", "", "", []string{kids[1], kids[0]}) != base {
		t.Error("a trailing slash or the key IDs' order changed the key")
	}
	if strings.Contains(base, "example") || strings.Contains(base, kids[0]) || len(base) != 64 {
		t.Errorf("key %q is not a digest", base)
	}
}

// ClusterKey reads the cluster's identity from Nomad once per client: a
// cluster rebuilt at the same address (new key IDs) has another key;
// credentials do not move it; no identity (Nomad unreachable or without
// keys) is no key at all.
func TestClusterKey_fromNomad(t *testing.T) {
	ctx := context.Background()
	f := newFakeNomad(t)
	f.handle("GET /.well-known/jwks.json", replyJSON(jwksOf("6f1c2a9e-0b7d-4e3a-8c5f-2d9b1e4a7c30")))
	c := f.client()
	var wg sync.WaitGroup
	keys := make([]string, 4)
	for i := range keys {
		wg.Add(1)
		go func() { defer wg.Done(); keys[i] = c.ClusterKey(ctx) }()
	}
	wg.Wait()
	if keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] || keys[3] != keys[0] {
		t.Fatalf("keys %q, want one non-empty key", keys)
	}
	if n := f.count("/.well-known/jwks.json"); n != 1 {
		t.Errorf("the cluster's identity was read %d times, want once", n)
	}
	withToken := f.client(func(c *Config) { c.Token = "s3cret-token"; c.Headers = map[string]string{"X-A": "s3cret-header"} })
	if withToken.ClusterKey(ctx) != keys[0] {
		t.Error("credentials changed the key")
	}

	f.handle("GET /.well-known/jwks.json", replyJSON(jwksOf("c2b8e5d1-7a94-4f3e-9b06-1d8f2a5c3e77")))
	if rebuilt := f.client().ClusterKey(ctx); rebuilt == "" || rebuilt == keys[0] {
		t.Errorf("a cluster rebuilt at the same address has key %q, the old one is %q", rebuilt, keys[0])
	}

	f.handle("GET /.well-known/jwks.json", replyJSON(jwksOf()))
	if got := f.client().ClusterKey(ctx); got != "" {
		t.Errorf("a cluster without keys has key %q, want none", got)
	}
	f.handle("GET /.well-known/jwks.json", replyRaw(http.StatusForbidden, "Permission denied"))
	if got := f.client().ClusterKey(ctx); got != "" {
		t.Errorf("a cluster whose identity cannot be read has key %q, want none", got)
	}
}
