package volume

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// fakeNoPathNomad answers a host volume create with Nomad's "No path to
// node", lists two nodes that are not ready (only the first has the mkdir
// plugin) and serves each node.
func fakeNoPathNomad(t *testing.T) *nomadclient.Client {
	t.Helper()
	nodes := map[string]map[string]any{
		"0d5a6b1c-0000-4000-8000-00000000d0a1": {"Name": "worker-3", "Status": "down", "NodePool": "default",
			"Attributes": map[string]string{"plugins.host_volume.mkdir.version": "1.0.0"}},
		"0d5a6b1c-0000-4000-8000-00000000d0a2": {"Name": "worker-4", "Status": "down", "NodePool": "default",
			"Attributes": map[string]string{}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply := func(v any) { _ = json.NewEncoder(w).Encode(v) }
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/volumes":
			reply([]any{})
		case r.Method == http.MethodPut && r.URL.Path == "/v1/volume/host/create":
			http.Error(w, "rpc error: No path to node", http.StatusInternalServerError)
		case r.Method == http.MethodGet && r.URL.Path == "/v1/nodes":
			if f := r.URL.Query().Get("filter"); !strings.Contains(f, `Status != "ready"`) {
				t.Errorf("node list filter %q does not select nodes that are not ready", f)
			}
			var stubs []map[string]any
			for _, id := range []string{"0d5a6b1c-0000-4000-8000-00000000d0a1", "0d5a6b1c-0000-4000-8000-00000000d0a2"} {
				stubs = append(stubs, map[string]any{"ID": id, "Name": nodes[id]["Name"], "Status": nodes[id]["Status"]})
			}
			reply(stubs)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/node/"):
			id := strings.TrimPrefix(r.URL.Path, "/v1/node/")
			n, ok := nodes[id]
			if !ok {
				http.Error(w, "node not found", http.StatusNotFound)
				return
			}
			full := map[string]any{"ID": id}
			for k, v := range n {
				full[k] = v
			}
			reply(full)
		default:
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A host volume Nomad places on a down node: the diagnostic names the node
// and says what fixes it, and the create counts as not applied (nothing to
// taint).
func TestVolumeCreate_noPathToNode(t *testing.T) {
	t.Parallel()
	c := fakeNoPathNomad(t)
	for name, tc := range map[string]struct {
		nodeID string
		want   []string
	}{
		"placed by Nomad": {"", []string{
			`host volume "data"`, "0d5a6b1c-0000-4000-8000-00000000d0a1 (worker-3, down)", "No path to node",
			"Set node_id to a ready node, or node_pool", "nomad node purge 0d5a6b1c-0000-4000-8000-00000000d0a1",
		}},
		"pinned": {"0d5a6b1c-0000-4000-8000-00000000d0a2", []string{
			"pinned to", "0d5a6b1c-0000-4000-8000-00000000d0a2 (worker-4, down)",
			"nomad node purge 0d5a6b1c-0000-4000-8000-00000000d0a2",
		}},
	} {
		v := &volume.Volume{Type: volume.TypeHost, Name: "data", Namespace: "default", NodeID: tc.nodeID}
		_, err := workflow.NewVolumes(c, "default").Create(t.Context(), workflow.VolumeWrite{Volume: v})
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if workflow.Uncertain(err) {
			t.Errorf("%s: a create Nomad could not deliver counts as uncertain: %v", name, err)
		}
		var diags diag.Diagnostics
		shared.AddWorkflowError(&diags, volumeErrors(""), err)
		if len(diags) != 1 {
			t.Fatalf("%s: %d diagnostics, want 1: %v", name, len(diags), diags)
		}
		text := diags[0].Summary() + "\n" + diags[0].Detail()
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: diagnostic lacks %q:\n%s", name, w, text)
			}
		}
		if strings.Contains(text, "worker-4") != (tc.nodeID != "") {
			t.Errorf("%s: a node without the volume's plugin named (or the pinned one not):\n%s", name, text)
		}
	}
}
