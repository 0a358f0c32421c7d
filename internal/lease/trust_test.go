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
	recorded := Trust{Signed: true, Recorded: true, Signer: base.User}
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
		// No trust on first use: a signature neither the provider's key
		// nor one berth signed with can vouch for is never Verified.
		{"intact, no key, nothing recorded (import)", false, nil, Trust{}, Unsigned, "a key berth did not sign it with"},
		{"intact, no key, signer recorded only as signed", false, nil, Trust{Signed: true, Recorded: true}, Unsigned,
			"a key berth did not sign it with"},
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
			recorded, Tampered, "not by the key berth signed this lease with"},
		{"re-signed with the provider key", false, func(j *api.Job) { resign(j, key) }, withKey, Verified, ""},
		{"expires_at moved later", false, func(j *api.Job) { j.Meta[MetaExpiresAt] = "2025-01-02T09:04:05Z" },
			withKey, Tampered, "but created_at + duration is"},
		{"expires_at, duration and timer moved later", false, func(j *api.Job) {
			j.Meta[MetaExpiresAt], j.Meta[MetaDuration] = "2025-01-02T09:04:05Z", "6h0m0s"
			findTask(j.TaskGroups[0], TimerTask).Config["args"] = []any{"21597"}
		}, withKey, Tampered, "signature does not match"},
		{"re-signed with another key, no key, tampered before", false, func(j *api.Job) { resign(j, other) },
			Trust{Signed: true, Recorded: true, WasTampered: true}, Tampered, "failed verification at an earlier read"},
		{"written unsigned, then signed by a stranger, no key", true, func(j *api.Job) { resign(j, other) },
			Trust{Recorded: true}, Tampered, "berth wrote this lease unsigned"},
		{"written unsigned, then signed by a stranger, provider key", true, func(j *api.Job) { resign(j, other) },
			Trust{Key: pub, Recorded: true}, Tampered, "not by the provider's signing key"},
		{"signed by a stranger, imported, no key", true, func(j *api.Job) { resign(j, other) },
			Trust{}, Unsigned, "signed by " + HexPrefix(ed25519Hex(other))},
		{"signed by a stranger, signer recorded", true, func(j *api.Job) { resign(j, other) },
			recorded, Tampered, "not by the key berth signed this lease with"},
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

// TestCheck_rollback: a lease signed for 24h, shortened in place to 1h
// (signed again, same created_at), then brought back to the 24h version
// (nomad job revert) must not verify against the newest signature berth
// recorded, with or without the provider's key.
func TestCheck_rollback(t *testing.T) {
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	at := func(l Lease, signedAt time.Time, d time.Duration) Lease {
		l.Duration, l.SignedAt = d, signedAt
		s, err := Sign(l, key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := fixture()
	t0 := base.CreatedAt.Add(123456789 * time.Nanosecond)
	long := at(base, t0, 24*time.Hour)
	short := at(base, t0.Add(time.Minute), time.Hour)
	sameTime := at(base, t0.Add(time.Minute), 2*time.Hour)
	undated := at(base, time.Time{}, 24*time.Hour)
	undated2 := at(base, time.Time{}, 2*time.Hour)
	renewed := base
	renewed.CreatedAt = base.CreatedAt.Add(25 * time.Hour)
	renewed = at(renewed, renewed.CreatedAt.Add(time.Millisecond), 24*time.Hour)
	now := base.CreatedAt.Add(2 * time.Minute)

	tests := []struct {
		name string
		live Lease
		last Signing
		want Status
		why  string
	}{
		{"reverted to the 24h version", long, SigningOf(short), Tampered,
			"rolled back to a version signed at " + signedStamp(long.SignedAt) + ", earlier than the one recorded at " + signedStamp(short.SignedAt)},
		{"the recorded version", short, SigningOf(short), Verified, ""},
		{"a later version (an update berth's record missed)", short, SigningOf(long), Verified, ""},
		{"renewed later", renewed, SigningOf(short), Verified, ""},
		{"another signature at the same time", sameTime, SigningOf(short), Tampered, "no later than the one recorded"},
		{"reverted to a version from before signing times", undated, SigningOf(short), Tampered, "signed at an unrecorded time"},
		{"an undated version other than the recorded undated one", undated2, SigningOf(undated), Tampered, "no later than"},
		{"the recorded undated version", undated, SigningOf(undated), Verified, ""},
		{"nothing recorded (import)", long, Signing{}, Verified, ""},
	}
	for _, tt := range tests {
		for _, trust := range []Trust{
			{Key: pub, Signed: true, Recorded: true, Last: tt.last},
			{Signer: tt.live.User, Signed: true, Recorded: true, Last: tt.last},
		} {
			t.Run(tt.name, func(t *testing.T) {
				job := nomadCopy(t, BuildJob(tt.live, "", now), now)
				live, err := LeaseFromJob(job)
				if err != nil {
					t.Fatal(err)
				}
				if !live.SignedAt.Equal(tt.live.SignedAt) {
					t.Fatalf("signed_at read back as %s, want %s", live.SignedAt, tt.live.SignedAt)
				}
				got, problems := Check(live, trust)
				if got != tt.want {
					t.Fatalf("Check = %v (%q), want %v", got, problems, tt.want)
				}
				if (tt.why == "") != (len(problems) == 0) || (tt.why != "" && !containsAny(problems, tt.why)) {
					t.Errorf("problems = %q, want one containing %q", problems, tt.why)
				}
			})
		}
	}
}
