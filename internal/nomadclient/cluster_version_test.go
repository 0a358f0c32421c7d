package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// answerVersion makes the fake answer /v1/agent/self as Nomad v would.
func answerVersion(f *fakeNomad, v string) {
	f.handle("GET "+agentSelfPath, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"config":{"Version":{"Version":%q,"VersionPrerelease":""}},"member":{},"stats":{}}`, v)
	})
}

// A cluster older than the oldest supported Nomad is refused on the first
// request, naming both versions, and the request itself is never sent.
func TestVersionGate_refusesAnOlderCluster(t *testing.T) {
	f := newFakeNomad(t)
	answerVersion(f, "1.9.7")
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) { t.Error("the job was read") })
	c := f.client()
	_, err := c.GetJob(context.Background(), "default", "web")
	var ve *NomadVersionError
	if !errors.As(err, &ve) {
		t.Fatalf("GetJob: %v, want a NomadVersionError", err)
	}
	for _, want := range []string{"1.9.7", OldestSupportedNomad, f.srv.URL} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if got := f.count(agentSelfPath); got != 1 {
		t.Errorf("%d version reads, want 1", got)
	}
	// A write is refused the same way, without asking again.
	if _, err := c.ScaleJob(context.Background(), "default", "web", "web", 2, "", 0); !errors.As(err, &ve) {
		t.Errorf("ScaleJob: %v, want a NomadVersionError", err)
	}
	if got := f.count(agentSelfPath); got != 1 {
		t.Errorf("%d version reads after a second call, want 1", got)
	}
}

// The version is read once per client, and a supported one (a newer one, a
// pre-release of a supported one) lets every request through.
func TestVersionGate_supportedVersions(t *testing.T) {
	for _, v := range []string{OldestSupportedNomad, "1.11.3", "1.12.0-beta.1", "2.0.0"} {
		t.Run(v, func(t *testing.T) {
			f := newFakeNomad(t)
			answerVersion(f, v)
			f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
			c := f.client()
			for range 3 {
				if _, err := c.GetJob(context.Background(), "default", "web"); err != nil {
					t.Fatalf("GetJob: %v", err)
				}
			}
			if got := c.ClusterVersion(context.Background()); got != v {
				t.Errorf("ClusterVersion = %q, want %q", got, v)
			}
			if got := f.count(agentSelfPath); got != 1 {
				t.Errorf("%d version reads, want 1", got)
			}
		})
	}
}

// A token without agent:read cannot read the version: berth goes on and
// lets Nomad answer, and a feature's check passes.
func TestVersionGate_unreadableVersion(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET "+agentSelfPath, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Permission denied", http.StatusForbidden)
	})
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	c := f.client()
	if _, err := c.GetJob(context.Background(), "default", "web"); err != nil {
		t.Fatalf("GetJob: %v", err)
	}
	if v := c.ClusterVersion(context.Background()); v != "" {
		t.Errorf("ClusterVersion = %q, want unknown", v)
	}
	if err := c.RequireNomad(context.Background(), "1.11.0", "berth_node_intro_token"); err != nil {
		t.Errorf("RequireNomad on an unknown version: %v", err)
	}
	if got := f.count(agentSelfPath); got != 1 {
		t.Errorf("%d version reads, want 1", got)
	}
}

// A feature of a newer Nomad is refused by name on an older, supported one.
func TestRequireNomad(t *testing.T) {
	f := newFakeNomad(t)
	answerVersion(f, "1.10.5")
	c := f.client()
	err := c.RequireNomad(context.Background(), "1.11.0", "berth_node_intro_token")
	want := "berth_node_intro_token needs Nomad 1.11.0 or later, and the Nomad agent at " + f.srv.URL + " runs Nomad 1.10.5"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("RequireNomad = %v, want it to start %q", err, want)
	}
	if err := c.RequireNomad(context.Background(), "1.10.0", "something older"); err != nil {
		t.Errorf("RequireNomad of an older version: %v", err)
	}
}

// Terraform runs ten operations at once: the first request of each asks
// the version, and the cluster is asked once in all.
func TestVersionGate_oneReadUnderConcurrency(t *testing.T) {
	f := newFakeNomad(t)
	answerVersion(f, "1.11.3")
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	c := f.client()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				if v := c.ClusterVersion(context.Background()); v != "1.11.3" {
					t.Errorf("ClusterVersion = %q", v)
				}
				return
			}
			if _, err := c.GetJob(context.Background(), "default", "web"); err != nil {
				t.Errorf("GetJob: %v", err)
			}
		})
	}
	wg.Wait()
	if got := f.count(agentSelfPath); got != 1 {
		t.Errorf("%d version reads, want 1", got)
	}
}
