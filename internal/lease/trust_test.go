package lease

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestCheck reads lease jobs edited the ways an operator with Nomad
// access could, and checks what each reads as for a provider with and
// without a signing key.
func TestCheck(t *testing.T) {
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	other := ed25519.NewKeyFromSeed(seed(9))
	withKey := Trust{Key: pub}
	base := signed(t, fixture())
	recorded := Trust{Signed: true, User: base.User}
	now := base.CreatedAt.Add(3 * time.Second)

	resign := func(j *api.Job, k ed25519.PrivateKey) {
		l, err := LeaseFromJob(j)
		if err != nil {
			t.Fatal(err)
		}
		l.Workload.Env["SNEAKY"] = "1"
		s, err := Sign(l, k)
		if err != nil {
			t.Fatal(err)
		}
		j.Meta[MetaUser], j.Meta[MetaSignature] = s.User, s.Signature
		findTask(j.TaskGroups[0], WorkloadTask).Env["SNEAKY"] = "1"
	}
	tests := []struct {
		name   string
		unsign bool // build the job from the unsigned lease
		mutate func(*api.Job)
		trust  Trust
		want   Status
		why    string // a problem must contain this
	}{
		{"intact, provider key", false, nil, withKey, Verified, ""},
		{"intact, no key", false, nil, Trust{}, Verified, ""},
		{"intact, signer recorded", false, nil, recorded, Verified, ""},
		{"signature removed, provider key", false, func(j *api.Job) { delete(j.Meta, MetaSignature) },
			withKey, Tampered, "lease has a user but no signature"},
		{"signature and user removed, provider key", false, func(j *api.Job) {
			delete(j.Meta, MetaSignature)
			delete(j.Meta, MetaUser)
		}, withKey, Tampered, "lease is not signed"},
		{"task smuggled in and signature removed, provider key", false, func(j *api.Job) {
			j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &api.Task{Name: "miner", Driver: "raw_exec"})
			delete(j.Meta, MetaSignature)
			delete(j.Meta, MetaUser)
		}, withKey, Tampered, `has task "miner", berth writes none`},
		{"signature and user removed, no key, was signed", false, func(j *api.Job) {
			delete(j.Meta, MetaSignature)
			delete(j.Meta, MetaUser)
		}, recorded, Tampered, "lease is not signed"},
		{"re-signed with another key, provider key", false, func(j *api.Job) { resign(j, other) },
			withKey, Tampered, "not by the provider's signing key"},
		{"re-signed with another key, no key, signer recorded", false, func(j *api.Job) { resign(j, other) },
			recorded, Tampered, "not by the signer recorded in state"},
		{"re-signed with the provider key", false, func(j *api.Job) { resign(j, key) }, withKey, Verified, ""},
		{"expires_at moved later", false, func(j *api.Job) { j.Meta[MetaExpiresAt] = "2025-01-02T09:04:05Z" },
			withKey, Tampered, "but created_at + duration is"},
		{"expires_at, duration and timer moved later", false, func(j *api.Job) {
			j.Meta[MetaExpiresAt], j.Meta[MetaDuration] = "2025-01-02T09:04:05Z", "6h0m0s"
			findTask(j.TaskGroups[0], TimerTask).Config["args"] = []any{"21597"}
		}, withKey, Tampered, "signature does not match"},
		{"re-signed with another key, no key, tampered before", false, func(j *api.Job) { resign(j, other) },
			Trust{Signed: true, User: ed25519Hex(other), WasTampered: true}, Tampered, "failed verification at an earlier read"},
		{"intact, provider key, tampered before", false, nil, Trust{Key: pub, WasTampered: true}, Verified, ""},
		{"never signed, provider key", true, nil, withKey, Tampered, "lease is not signed"},
		{"never signed, no key", true, nil, Trust{}, Unsigned, ""},
		{"never signed, no key, foreign change", true, func(j *api.Job) {
			j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &api.Task{Name: "miner"})
		}, Trust{}, Unsigned, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := base
			if tt.unsign {
				l = fixture()
			}
			job := nomadCopy(t, BuildJob(l, "", now), now)
			if tt.mutate != nil {
				tt.mutate(job)
			}
			live, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			got, problems := Check(live, tt.trust)
			if got != tt.want {
				t.Fatalf("Check = %v (%q), want %v", got, problems, tt.want)
			}
			if (tt.why == "") != (len(problems) == 0) || (tt.why != "" && !containsAny(problems, tt.why)) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.why)
			}
		})
	}
}

func ed25519Hex(k ed25519.PrivateKey) string {
	return hex.EncodeToString(k.Public().(ed25519.PublicKey))
}
