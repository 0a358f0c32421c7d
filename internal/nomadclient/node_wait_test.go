package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

const volumeNodeID = "0123abcd-0000-4000-8000-00000000000a"

// nodeAt answers a node read with the node in status at Nomad index.
func nodeAt(status string, index uint64) http.HandlerFunc {
	body, _ := json.Marshal(&api.Node{ID: volumeNodeID, Name: "n1", Status: status})
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Nomad-Index", strconv.FormatUint(index, 10))
		_, _ = w.Write(body)
	}
}

// byIndex routes a node read by the index it waits on ("" for none).
func byIndex(routes map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		routes[r.URL.Query().Get("index")](w, r)
	}
}

func TestDeleteVolume_nodeUnreachableIsTyped(t *testing.T) {
	t.Parallel()
	for body, typed := range map[string]bool{
		"volume cannot be removed from unknown node without force=true": true,
		"rpc error: some other failure":                                 false,
	} {
		f := newFakeNomad(t)
		f.handle("DELETE /v1/volume/host/vol-1", replyRaw(http.StatusInternalServerError, body))
		err := f.client().DeleteVolume(context.Background(), "default", "vol-1", false)
		var unreachable *VolumeNodeUnreachableError
		if errors.As(err, &unreachable) != typed || err == nil || !strings.Contains(err.Error(), body) {
			t.Errorf("%q: error %v (%T), want typed %t", body, err, err, typed)
		}
		// A refused write is not retried, and never forced.
		if reqs := f.requests("/v1/volume/host/vol-1"); len(reqs) != 1 || reqs[0].Query.Get("force") != "" {
			t.Errorf("%q: delete requests %+v, want one without force", body, reqs)
		}
	}
}

// TestWaitNodeReady_blockingQueries: the first read answers at once, the
// next waits on the index Nomad reported, bounded by the deadline, until
// the node is ready; the index returned is the next one to wait on.
func TestWaitNodeReady_blockingQueries(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		routes map[string]http.HandlerFunc
		index  uint64
		reads  []string // the index each read waited on
		next   uint64
	}{
		"initializing then ready": {routes: map[string]http.HandlerFunc{"": nodeAt("initializing", 10), "10": nodeAt("ready", 11)},
			reads: []string{"", "10"}, next: 11},
		"down, then re-registered, then ready": {routes: map[string]http.HandlerFunc{
			"": nodeAt("down", 10), "10": nodeAt("initializing", 12), "12": nodeAt("ready", 13)},
			reads: []string{"", "10", "12"}, next: 13},
		"ready at once": {routes: map[string]http.HandlerFunc{"": nodeAt("ready", 10)}, reads: []string{""}, next: 10},
		"read ready before: waits on its index": {routes: map[string]http.HandlerFunc{"10": nodeAt("ready", 14)}, index: 10,
			reads: []string{"10"}, next: 14},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFakeNomad(t)
			f.handle("GET /v1/node/"+volumeNodeID, byIndex(tc.routes))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			next, err := f.client().WaitNodeReady(ctx, volumeNodeID, tc.index)
			if err != nil || next != tc.next {
				t.Fatalf("WaitNodeReady = %d, %v; want %d", next, err, tc.next)
			}
			reqs := f.requests("/v1/node/" + volumeNodeID)
			if len(reqs) != len(tc.reads) {
				t.Fatalf("%d node reads, want %d", len(reqs), len(tc.reads))
			}
			for i, r := range reqs {
				if got := r.Query.Get("index"); got != tc.reads[i] {
					t.Errorf("read %d waits on index %q, want %q", i+1, got, tc.reads[i])
				}
				if r.Query.Get("index") == "" {
					continue
				}
				if wait, err := time.ParseDuration(r.Query.Get("wait")); err != nil || wait <= 0 || wait > 30*time.Second {
					t.Errorf("read %d waits %q; want a wait within the 30s deadline", i+1, r.Query.Get("wait"))
				}
			}
		})
	}
}

// TestWaitNodeReady_neverReady: a node that stays down ends the wait with
// the context, naming the node and its status.
func TestWaitNodeReady_neverReady(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/node/"+volumeNodeID, byIndex(map[string]http.HandlerFunc{
		"": nodeAt("down", 10), "10": hangUntilDone(t)}))
	// The node never changes, so however long the deadline, the wait ends
	// with it.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := f.client().WaitNodeReady(ctx, volumeNodeID, 0)
	var notReady *NodeNotReadyError
	if !errors.As(err, &notReady) || notReady.Status != "down" || notReady.Name != "n1" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v (%T), want a *NodeNotReadyError of node n1, status down, at the deadline", err, err)
	}
}

func TestWaitNodeReady_nodeGone(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/node/"+volumeNodeID, replyRaw(http.StatusNotFound, "node not found"))
	_, err := f.client().WaitNodeReady(context.Background(), volumeNodeID, 0)
	var gone *NodeNotFoundError
	if !errors.As(err, &gone) || f.count("/v1/node/"+volumeNodeID) != 1 {
		t.Fatalf("error %v after %d reads, want a *NodeNotFoundError at once", err, f.count("/v1/node/"+volumeNodeID))
	}
}
