package nomadclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

const introPath = "/v1/acl/identity/client-introduction-token"

// fakeIntroJWT is an unsigned JWT with the given claims (berth reads them
// without verifying; the acceptance test verifies a real one).
func fakeIntroJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2lnbmF0dXJl"
}

// On Nomad 1.11 the request carries the spec, and the claims are read
// from the token Nomad signed.
func TestCreateNodeIntroToken(t *testing.T) {
	f := newFakeNomad(t)
	answerVersion(f, "1.11.3")
	jwt := fakeIntroJWT(t, map[string]any{"nomad_node_name": "edge-1", "nomad_node_pool": "edge",
		"iat": 1767225600, "exp": 1767226500, "sub": "node-introduction:global:edge:edge-1:default"})
	f.handle("PUT "+introPath, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"JWT":%q}`, jwt)
	})
	tok, err := f.client().CreateNodeIntroToken(context.Background(), NodeIntroSpec{NodeName: "edge-1", NodePool: "edge", TTL: 15 * time.Minute})
	if err != nil {
		t.Fatalf("CreateNodeIntroToken: %v", err)
	}
	if tok.JWT() != jwt {
		t.Errorf("JWT() is not the token Nomad returned")
	}
	if tok.NodeName != "edge-1" || tok.NodePool != "edge" {
		t.Errorf("claims: node %q pool %q", tok.NodeName, tok.NodePool)
	}
	if want := time.Date(2026, 1, 1, 0, 15, 0, 0, time.UTC); !tok.ExpiresAt.Equal(want) || tok.ExpiresAt.Location() != time.UTC {
		t.Errorf("ExpiresAt = %v, want %v", tok.ExpiresAt, want)
	}
	if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !tok.IssuedAt.Equal(want) {
		t.Errorf("IssuedAt = %v, want %v", tok.IssuedAt, want)
	}
	reqs := f.requests(introPath)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var sent struct {
		NodeName, NodePool string
		TTL                time.Duration
	}
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if sent.NodeName != "edge-1" || sent.NodePool != "edge" || sent.TTL != 15*time.Minute {
		t.Errorf("sent %+v", sent)
	}
}

// An older cluster is refused by name, both versions named, and nothing
// is asked of it.
func TestCreateNodeIntroToken_olderNomad(t *testing.T) {
	f := newFakeNomad(t)
	answerVersion(f, "1.10.5")
	_, err := f.client().CreateNodeIntroToken(context.Background(), NodeIntroSpec{})
	var ve *NomadVersionError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a NomadVersionError", err)
	}
	for _, want := range []string{"berth_node_intro_token", "1.10.5", "1.11.0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if n := f.count(introPath); n != 0 {
		t.Errorf("%d token requests reached the older cluster", n)
	}
}

// A version berth cannot read lets the request through; a 404 then says
// which Nomad added the endpoint.
func TestCreateNodeIntroToken_unknownVersionNotFound(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET "+agentSelfPath, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Permission denied", http.StatusForbidden)
	})
	f.handle("PUT "+introPath, func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	_, err := f.client().CreateNodeIntroToken(context.Background(), NodeIntroSpec{})
	if err == nil || !IsNotFound(err) || !strings.Contains(err.Error(), "Nomad 1.11.0 added client introduction tokens") {
		t.Errorf("err = %v, want the 404 with the version hint", err)
	}
}

// A token berth cannot read is an error that never repeats it.
func TestCreateNodeIntroToken_unreadableToken(t *testing.T) {
	for name, jwt := range map[string]string{
		"two parts":       "c2VjcmV0LXBhcnQ.c2VjcmV0LXBhcnQ",
		"not base64":      "c2VjcmV0LXBhcnQ.!!secret-part!!.c2VjcmV0LXBhcnQ",
		"payload no JSON": "c2VjcmV0LXBhcnQ." + base64.RawURLEncoding.EncodeToString([]byte("secret-part")) + ".c2VjcmV0LXBhcnQ",
		"empty":           "",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeNomad(t)
			answerVersion(f, "1.11.3")
			f.handle("PUT "+introPath, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, `{"JWT":%q}`, jwt) })
			_, err := f.client().CreateNodeIntroToken(context.Background(), NodeIntroSpec{})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "secret-part") || strings.Contains(err.Error(), "c2VjcmV0") {
				t.Errorf("the error repeats the token: %v", err)
			}
		})
	}
}
