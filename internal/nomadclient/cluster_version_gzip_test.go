package nomadclient

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// answerVersionGzipped answers /v1/agent/self gzipped when the client
// asks for gzip, as a real Nomad agent does (the api client always asks).
func answerVersionGzipped(f *fakeNomad, v string) {
	f.handle("GET "+agentSelfPath, func(w http.ResponseWriter, r *http.Request) {
		body := fmt.Sprintf(`{"config":{"Version":{"Version":%q,"VersionPrerelease":""}},"member":{},"stats":{}}`, v)
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			fmt.Fprint(w, body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, body)
		_ = zw.Close()
	})
}

// The version is read from a gzipped answer, whichever request comes
// first: the version read itself (ClusterVersion, RequireNomad), or
// another request, before which the gate asks.
func TestVersionGate_gzippedAnswer(t *testing.T) {
	t.Run("the version read first", func(t *testing.T) {
		f := newFakeNomad(t)
		answerVersionGzipped(f, "1.10.5")
		c := f.client()
		if v := c.ClusterVersion(context.Background()); v != "1.10.5" {
			t.Errorf("ClusterVersion = %q, want 1.10.5", v)
		}
		err := c.RequireNomad(context.Background(), "1.11.0", "berth_node_intro_token")
		var ve *NomadVersionError
		if !errors.As(err, &ve) || ve.Have != "1.10.5" {
			t.Errorf("RequireNomad = %v, want a refusal naming 1.10.5", err)
		}
	})
	t.Run("another request first", func(t *testing.T) {
		f := newFakeNomad(t)
		answerVersionGzipped(f, "1.9.7")
		f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) { t.Error("the job was read") })
		_, err := f.client().GetJob(context.Background(), "default", "web")
		var ve *NomadVersionError
		if !errors.As(err, &ve) || ve.Have != "1.9.7" {
			t.Errorf("GetJob = %v, want a refusal naming 1.9.7", err)
		}
	})
}
