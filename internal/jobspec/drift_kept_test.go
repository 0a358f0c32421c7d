package jobspec

import (
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// classesJob sets what Nomad 1.10 drops or adds to at registration.
const classesJob = `
job "j" {
  group "g" {
    stop_after_client_disconnect = "15s"
    max_client_disconnect        = "1m"
    prevent_reschedule_on_lost   = true
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      vault {
        policies = ["app-read"]
      }
      identity {
        name = "example"
        aud  = ["example.com"]
        ttl  = "1h"
        file = true
      }
    }
  }
}`

// asNomad110Holds is job as Nomad 1.10.5 reads it back (observed on the
// test agent, whose configuration names Vault with a default identity):
// the pre-1.8 disconnect settings and the Vault policies dropped, the
// vault_default identity added, the defaults filled in.
func asNomad110Holds(job *api.Job) *api.Job {
	job.Canonicalize()
	g := job.TaskGroups[0]
	g.StopAfterClientDisconnect, g.MaxClientDisconnect, g.PreventRescheduleOnLost = nil, nil, ptr(false) //nolint:staticcheck // what Nomad returns
	t := g.Tasks[0]
	t.Vault.Policies = nil
	t.Vault.Cluster = "default"
	t.Identities = append(t.Identities, &api.WorkloadIdentity{Name: "vault_default", Audience: []string{"vault.io"}, TTL: time.Hour})
	return job
}

// Each class reads back without drift: the settings Nomad drops are not
// compared, identities are matched by name and Nomad's own are not drift.
func TestDriftFollowsWhatNomadKeeps(t *testing.T) {
	want := parse(t, Spec{Source: classesJob})
	live := asNomad110Holds(parse(t, Spec{Source: classesJob}))
	if d := Drift(want, live); len(d) != 0 {
		t.Fatalf("the job drifts from itself as Nomad holds it: %q", d)
	}
}

// A change to an identity the jobspec names is still drift, named by the
// identity's name; one Nomad lacks is missing.
func TestDriftMatchesIdentitiesByName(t *testing.T) {
	want := parse(t, Spec{Source: classesJob})
	live := asNomad110Holds(parse(t, Spec{Source: classesJob}))
	ids := live.TaskGroups[0].Tasks[0].Identities
	ids[0].TTL = 2 * time.Hour
	slices.Reverse(ids) // order is not compared
	if d, w := Drift(want, live), `group "g" / task "t" / identity "example" / ttl: 2h0m0s → 1h0m0s`; !slices.Equal(d, []string{w}) {
		t.Errorf("drift %q, want [%q]", d, w)
	}
	live.TaskGroups[0].Tasks[0].Identities = ids[:1] // vault_default alone
	if d, w := Drift(want, live), `group "g" / task "t" / identity "example": missing in Nomad`; !slices.Equal(d, []string{w}) {
		t.Errorf("drift %q, want [%q]", d, w)
	}
}

// The default identity (an identity block without a name), which Nomad
// keeps apart from the named ones, is compared too, as "default".
func TestDriftComparesTheDefaultIdentity(t *testing.T) {
	src := `
job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      identity { env = true }
    }
  }
}`
	want := parse(t, Spec{Source: src})
	live := parse(t, Spec{Source: src})
	live.Canonicalize()
	id := live.TaskGroups[0].Tasks[0].Identity
	id.Name, id.Audience = "default", []string{"nomadproject.io"} // as Nomad fills it in
	if d := Drift(want, live); len(d) != 0 {
		t.Fatalf("the job drifts from itself: %q", d)
	}
	id.Env = false
	if d, w := Drift(want, live), `group "g" / task "t" / identity "default" / env: false → true`; !slices.Equal(d, []string{w}) {
		t.Errorf("drift %q, want [%q]", d, w)
	}
	if len(want.TaskGroups[0].Tasks[0].Identities) != 0 || len(live.TaskGroups[0].Tasks[0].Identities) != 0 {
		t.Error("Drift modified its arguments")
	}
}
