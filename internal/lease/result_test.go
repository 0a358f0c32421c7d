package lease

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// clusterKey stands in for Nomad's keyring: a key that signs identities,
// and the key set it publishes.
func clusterKey(t *testing.T) (jose.Signer, []byte) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: priv, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: "k1", Algorithm: string(jose.EdDSA), Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	return signer, jwks
}

func resultToken(t *testing.T, s jose.Signer, aud, job, task string) string {
	t.Helper()
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Audience: jwt.Audience{aud}, IssuedAt: jwt.NewNumericDate(time.Unix(1735700000, 0))}).
		Claims(nomadClaims{Namespace: "default", JobID: job, AllocationID: "a1", Task: task}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestVerifyResult(t *testing.T) {
	signer, jwks := clusterKey(t)
	good := resultToken(t, signer, ResultAudience, "train-42", TimerTask)
	got, err := VerifyResult(good, jwks, "", "train-42")
	if err != nil || got.AllocationID != "a1" || got.JobID != "train-42" || got.IssuedAt.Unix() != 1735700000 {
		t.Fatalf("a genuine result: %+v, %v", got, err)
	}
	parts := strings.Split(good, ".")
	claims := strings.Replace(parts[1], parts[1][10:11], string(rune(parts[1][10]^1)), 1)
	otherSigner, _ := clusterKey(t)
	for name, c := range map[string]struct{ token, want string }{
		"tampered claims":    {parts[0] + "." + claims + "." + parts[2], "verifies"},
		"another key":        {resultToken(t, otherSigner, ResultAudience, "train-42", TimerTask), "verifies"},
		"another audience":   {resultToken(t, signer, "nomadproject.io", "train-42", TimerTask), "not a lease result"},
		"another lease":      {resultToken(t, signer, ResultAudience, "train-43", TimerTask), "not lease"},
		"the workload task":  {resultToken(t, signer, ResultAudience, "train-42", WorkloadTask), "issued to task"},
		"not a token at all": {"nope", "not a signed JWT"},
	} {
		if _, err := VerifyResult(c.token, jwks, "default", "train-42"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// TestCheckResultLease: a result is the current lease's only when the
// allocation that answered ran the version of the lease in Nomad now, and
// both verify against berth's key.
func TestCheckResultLease(t *testing.T) {
	key := testKey()
	withKey := Trust{Key: key.Public().(ed25519.PublicKey), Signed: true}
	sign := func(l Lease, at time.Time) Lease {
		l.SignedAt = at
		s, err := Sign(l, key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := fixture()
	current := sign(base, base.CreatedAt)
	earlier := base
	earlier.CreatedAt = base.CreatedAt.Add(-3 * time.Hour)
	earlier = sign(earlier, earlier.CreatedAt)
	shorter := base
	shorter.Duration = time.Hour
	shorter = sign(shorter, base.CreatedAt.Add(time.Minute))
	tampered := current
	tampered.Workload.Env = map[string]string{"SNEAKY": "1"}
	stranger, err := Sign(current, ed25519.NewKeyFromSeed(seed(9)))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckResultLease(current, current, withKey); err != nil {
		t.Fatalf("the current lease's own result: %v", err)
	}
	for name, c := range map[string]struct {
		ran, current Lease
		trust        Trust
		want         string
	}{
		"an earlier lease of the same name": {earlier, current, withKey, "issued to an earlier lease of the same name"},
		"an earlier version of the lease":   {current, shorter, withKey, "issued to an earlier version of this lease"},
		"a tampered version":                {tampered, current, withKey, "does not verify (changed outside berth)"},
		"a stranger's version":              {stranger, current, withKey, "does not verify"},
		"the current lease tampered":        {current, tampered, withKey, "in Nomad does not verify now"},
		"no key to verify against":          {current, current, Trust{Signed: true}, "no signing_key"},
	} {
		if err := CheckResultLease(c.ran, c.current, c.trust); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
