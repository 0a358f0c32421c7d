package lease

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// TestLeaseObjects_fromSchema: the workload and result objects are built
// with the attribute types the schema declares, and a lease's times keep
// the state format (RFC 3339, UTC, whole seconds).
func TestLeaseObjects_fromSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var diags diag.Diagnostics
	s := leaseSchema(ctx)
	w := workloadObject(ctx, lease.Workload{Driver: "docker", Args: []string{"a"}, Env: map[string]string{"K": "v"}, CPU: 1, Memory: 2, Disk: 3}, &diags)
	res := leaseResult(ctx, nomadclient.TaskOutcome{Running: true, NodeID: "n"}, false, &diags)
	if diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	if !w.Type(ctx).Equal(s.Attributes["workload"].GetType()) || !res.Type(ctx).Equal(s.Attributes["result"].GetType()) {
		t.Errorf("object types differ from the schema: workload %s, result %s", w.Type(ctx), res.Type(ctx))
	}
	if got := res.Attributes()["state"].String(); got != `"ok"` {
		t.Errorf("result.state = %s, want \"ok\"", got)
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 600_000_000, time.FixedZone("x", 3600))
	if got := timeValue(at).ValueString(); got != "2025-01-02T02:04:05Z" {
		t.Errorf("timeValue = %q, want RFC 3339 UTC whole seconds", got)
	}
}

// TestLeaseSign_onePlace: without a key a lease comes back unsigned, even
// one that carried an old signature; with one it verifies.
func TestLeaseSign_onePlace(t *testing.T) {
	t.Parallel()
	l := lease.Lease{Name: "x", Namespace: "default", Duration: time.Hour, CreatedAt: time.Unix(1700000000, 0).UTC(),
		Workload: lease.Workload{Driver: "raw_exec", CPU: 100, Memory: 300, Disk: 300}, User: "old", Signature: "old"}
	var diags diag.Diagnostics
	if got := (&leaseResource{ResourceBase: shared.ResourceBase{Data: &shared.ProviderData{}}}).sign(l, time.Time{}, &diags); got.User != "" || got.Signature != "" || diags.HasError() {
		t.Errorf("without a key: user %q, signature %q, diags %v; want unsigned", got.User, got.Signature, diags)
	}
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	got := (&leaseResource{ResourceBase: shared.ResourceBase{Data: &shared.ProviderData{SigningKey: key}}}).sign(l, time.Time{}, &diags)
	if ok, problems := lease.Verify(got); !ok || diags.HasError() {
		t.Errorf("with a key: %v, diags %v; want a verified lease", problems, diags)
	}
}

// TestLeaseSign_laterThanTheNewestKnown: a machine whose clock is behind the
// one that made the newest signature still dates its signature after it,
// so the rollback check does not take the newer version for an older one.
func TestLeaseSign_laterThanTheNewestKnown(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &leaseResource{ResourceBase: shared.ResourceBase{Data: &shared.ProviderData{SigningKey: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))}},
		now: func() time.Time { return now }}
	l := lease.Lease{Name: "x", Namespace: "default", Duration: time.Hour, CreatedAt: now.Add(-time.Minute),
		Workload: lease.Workload{Driver: "raw_exec", CPU: 100, Memory: 300, Disk: 300}}
	var diags diag.Diagnostics
	for _, c := range []struct {
		name       string
		prev, want time.Time
	}{
		{"no earlier signing", time.Time{}, now},
		{"earlier signing by a clock behind", now.Add(-time.Second), now},
		{"earlier signing by a clock ahead", now.Add(time.Hour), now.Add(time.Hour + time.Nanosecond)},
		{"earlier signing at the same instant", now, now.Add(time.Nanosecond)},
	} {
		got := r.sign(l, c.prev, &diags)
		if !got.SignedAt.Equal(c.want) || diags.HasError() {
			t.Errorf("%s: signed at %s, diags %v; want %s", c.name, got.SignedAt, diags, c.want)
		}
		if ok, problems := lease.Verify(got); !ok {
			t.Errorf("%s: %v; want a verified lease", c.name, problems)
		}
	}
}
