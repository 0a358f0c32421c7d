package server

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// shortcutsTaken sends p's server a create plan, an unchanged plan, and a
// refresh of the unchanged instance its first full read recorded (reads
// record with the shortcuts off too), and counts what each shortcut
// answered.
func shortcutsTaken(t *testing.T, p *readProbe) (creates, plans, reads int64) {
	t.Helper()
	p.createPlan(t, p.config)
	configDV, stateDV := p.dv(p.config), p.dv(p.planProbe.state)
	resp, err := p.srv.PlanResourceChange(context.Background(), p.planRequest(configDV, stateDV, stateDV))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("plan diagnostic: %s: %s", d.Summary, d.Detail)
	}
	if _, ok := privateReadSeen(p.private); !ok {
		t.Fatalf("the full read recorded nothing: %s", p.private)
	}
	p.read(t, p.state, p.private)
	return p.srv.creates.taken.Load(), p.srv.unchanged.taken.Load(), p.srv.reads.taken.Load()
}

// BERTH_SHORTCUTS=off sends every plan and refresh through the framework:
// none of the three shortcuts answers what each answers with it on (or
// unset), an unknown value is off too, and an apply is neither recorded
// nor read again.
func TestShortcutSwitch(t *testing.T) {
	for value, on := range map[string]bool{"": true, "on": true, "off": false, "OFF": false, "disabled": false} {
		t.Run("BERTH_SHORTCUTS="+value, func(t *testing.T) {
			t.Setenv(shortcutsEnv, value)
			p := newReadProbe(t, newServer("test", true), nil)
			creates, plans, reads := shortcutsTaken(t, p)
			if on && (creates != 1 || plans != 1 || reads != 1) {
				t.Fatalf("on: create-plan %d, unchanged-plan %d, unchanged-read %d taken, want 1 each", creates, plans, reads)
			}
			if !on && creates+plans+reads != 0 {
				t.Fatalf("off: create-plan %d, unchanged-plan %d, unchanged-read %d taken, want none", creates, plans, reads)
			}
			requests := p.cluster.requestCount()
			_, recorded := privateReadSeen(p.applied(t, p.state, p.private))
			if on != recorded || !on && p.cluster.requestCount() != requests {
				t.Errorf("after an apply: recorded %v, %d requests", recorded, p.cluster.requestCount()-requests)
			}
		})
	}
}

// A record is answered from only by the provider build and the cluster
// that made it; the credentials in an address neither select the cluster
// nor reach private state.
func TestUnchangedReads_recordNamesBuildAndCluster(t *testing.T) {
	p := newReadProbe(t, newServer("test", true), nil)
	u, err := url.Parse(p.cluster.url)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Host
	for _, leak := range []string{host, "127.0.0.1", "s3cret-pw"} {
		if strings.Contains(string(p.private), leak) || strings.Contains(recordText(t, p.private), leak) {
			t.Errorf("private state holds %q: %s", leak, recordText(t, p.private))
		}
	}
	withCreds := "http://ops:s3cret-pw@" + host
	other := newFakeInstanceCluster(t)
	other.job = p.cluster.job // the same job, the same index, another cluster
	for name, c := range map[string]struct {
		version, address string
		taken            bool
	}{
		"same build and cluster":     {"test", p.cluster.url, true},
		"credentials in the address": {"test", withCreds, true},
		"another version":            {"test-2", p.cluster.url, false},
		"another cluster":            {"test", other.url, false},
	} {
		t.Run(name, func(t *testing.T) {
			q := &readProbe{planProbe: newPlanProbeAt(t, newServer(c.version, true), c.address), cluster: p.cluster}
			q.srv, q.state, q.private = q.planProbe.srv.(*server), p.state, p.private
			resp := q.read(t, p.state, p.private)
			if got := q.srv.reads.taken.Load() == 1; got != c.taken {
				t.Errorf("shortcut taken: %v, want %v", got, c.taken)
			}
			if !q.value(t, resp.NewState).Equal(p.state) {
				t.Error("the refresh answered another state")
			}
		})
	}
}

// recordText is the record in raw private state as JSON text.
func recordText(t *testing.T, private []byte) string {
	t.Helper()
	seen, ok := privateReadSeen(private)
	if !ok {
		t.Fatalf("no record in %s", private)
	}
	b, err := json.Marshal(seen)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
