package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// fakeCluster answers every endpoint ClusterStatus reads, for three
// servers of which s2 is down: autopilot answers 429 with its report, as
// Nomad does when something is unhealthy.
func fakeCluster(t *testing.T, health http.HandlerFunc) *fakeNomad {
	f := newFakeNomad(t)
	f.handle("GET /v1/operator/raft/configuration", replyJSON(api.RaftConfiguration{Servers: []*api.RaftServer{
		{ID: "id-3", Node: "s3.global", Address: "10.0.0.3:4647", Voter: true},
		{ID: "id-1", Node: "s1.global", Address: "10.0.0.1:4647", Voter: true, Leader: true},
		{ID: "id-2", Node: "s2.global", Address: "10.0.0.2:4647", Voter: true},
	}}))
	f.handle("GET /v1/operator/autopilot/health", replyRaw(http.StatusTooManyRequests, `{"Healthy":false,"FailureTolerance":0,
		"Servers":[{"ID":"id-1","Healthy":true,"SerfStatus":"alive"},{"ID":"id-2","Healthy":false,"SerfStatus":"failed"},
		{"ID":"id-3","Healthy":true,"SerfStatus":"alive"}]}`))
	member := func(name, addr, status string) *api.AgentMember {
		return &api.AgentMember{Name: name, Status: status, Tags: map[string]string{"rpc_addr": addr, "port": "4647", "build": "1.10.5"}}
	}
	f.handle("GET /v1/agent/members", replyJSON(api.ServerMembers{ServerRegion: "global", Members: []*api.AgentMember{
		member("s1.global", "10.0.0.1", "alive"), member("s2.global", "10.0.0.2", "failed"), member("s3.global", "10.0.0.3", "alive"),
	}}))
	f.handle("GET /v1/status/leader", replyJSON("10.0.0.1:4647"))
	f.handle("GET /v1/regions", replyJSON([]string{"west", "global"}))
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{Datacenter: "dc2"}, {Datacenter: "dc1"}, {Datacenter: "dc2"}}))
	f.handle("GET /v1/agent/health", health)
	return f
}

func TestClusterStatusServerDown(t *testing.T) {
	f := fakeCluster(t, replyRaw(http.StatusInternalServerError, `{"client":{"ok":false,"message":"no known servers"}}`))
	st, err := f.client().ClusterStatus(context.Background())
	if err != nil {
		t.Fatalf("a server that is down must not fail the read: %v", err)
	}
	if n := f.count("/v1/operator/autopilot/health"); n != 1 {
		t.Errorf("autopilot's 429 is its answer, not a reason to retry: %d requests", n)
	}
	if st.Healthy || st.FailureTolerance != 0 || st.Leader != "10.0.0.1:4647" || st.Region != "global" {
		t.Errorf("status %+v", st)
	}
	if got := st.Regions; len(got) != 2 || got[0] != "global" || got[1] != "west" {
		t.Errorf("regions %v, want sorted [global west]", got)
	}
	if got := st.Datacenters; len(got) != 2 || got[0] != "dc1" || got[1] != "dc2" {
		t.Errorf("datacenters %v, want [dc1 dc2]", got)
	}
	if len(st.Servers) != 3 {
		t.Fatalf("servers %+v", st.Servers)
	}
	want := []ClusterServer{
		{ID: "id-1", Name: "s1.global", Address: "10.0.0.1:4647", Leader: true, Voter: true, Version: "1.10.5", Status: "alive", Healthy: true},
		{ID: "id-2", Name: "s2.global", Address: "10.0.0.2:4647", Voter: true, Version: "1.10.5", Status: "failed"},
		{ID: "id-3", Name: "s3.global", Address: "10.0.0.3:4647", Voter: true, Version: "1.10.5", Status: "alive", Healthy: true},
	}
	for i, s := range st.Servers {
		if s != want[i] {
			t.Errorf("server %d: %+v, want %+v", i, s, want[i])
		}
	}
	if st.Agent == nil || st.Agent.Client == nil || st.Agent.Client.OK || st.Agent.Server != nil || st.AgentError != "" {
		t.Errorf("agent health %+v (%q): want the unhealthy client part Nomad reported with 500", st.Agent, st.AgentError)
	}
}

func TestClusterStatusAgentHealthUnreadable(t *testing.T) {
	f := fakeCluster(t, replyRaw(http.StatusForbidden, "Permission denied"))
	st, err := f.client().ClusterStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Agent != nil || st.AgentError == "" {
		t.Errorf("agent health %+v, error %q: want none and the reason", st.Agent, st.AgentError)
	}
}

func TestNodePoolErrors(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("PUT /v1/node/pools", replyRaw(http.StatusInternalServerError, `Feature "Node Pools Governance" is unlicensed`))
	f.handle("DELETE /v1/node/pool/gpu", replyRaw(http.StatusInternalServerError,
		"1 error occurred:\n\t* node pool \"gpu\" has non-terminal jobs in regions: [global]\n\n"))
	f.handle("GET /v1/node/pool/gpu/nodes", replyJSON([]*api.NodeListStub{{Name: "worker-2"}, {Name: "worker-1"}}))
	f.handle("GET /v1/node/pool/gpu/jobs", replyJSON([]*api.JobListStub{
		{ID: "web", Namespace: "default", Status: "pending"}, {ID: "old", Namespace: "default", Status: "dead"},
	}))
	c := f.client()
	ctx := context.Background()
	err := c.WriteNodePool(ctx, NodePool{Name: "gpu", SchedulerAlgorithm: "spread"})
	var ent *EnterpriseRequiredError
	if !errors.As(err, &ent) {
		t.Errorf("write refused as unlicensed: %T %v, want *EnterpriseRequiredError", err, err)
	}
	if n := f.count("/v1/node/pools"); n != 1 {
		t.Errorf("a refused write is not retried: %d requests", n)
	}
	err = c.DeleteNodePool(ctx, "gpu")
	var inUse *NodePoolInUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("delete refused for jobs: %T %v, want *NodePoolInUseError", err, err)
	}
	if len(inUse.Nodes) != 2 || inUse.Nodes[0] != "worker-1" || len(inUse.Jobs) != 1 || inUse.Jobs[0] != "default/web" || inUse.ListErr != nil {
		t.Errorf("in use by nodes %v jobs %v (%v); want the nodes sorted and the unfinished job only", inUse.Nodes, inUse.Jobs, inUse.ListErr)
	}
	if q := f.requests("/v1/node/pool/gpu/jobs"); len(q) != 1 || q[0].Query.Get("namespace") != "*" {
		t.Errorf("the pool's jobs are listed in every namespace: %+v", q)
	}
}

func TestNodePoolRoundTrip(t *testing.T) {
	yes := true
	in := NodePool{Name: "gpu", Description: "d", Meta: map[string]string{"a": "b"}, SchedulerAlgorithm: "binpack", MemoryOversubscription: &yes}
	out := nodePoolFromAPI(in.toAPI())
	if out.Name != "gpu" || out.Description != "d" || out.Meta["a"] != "b" || out.SchedulerAlgorithm != "binpack" || !*out.MemoryOversubscription {
		t.Errorf("round trip %+v", out)
	}
	if (NodePool{Name: "plain"}).toAPI().SchedulerConfiguration != nil {
		t.Error("a pool without scheduler settings must send no scheduler configuration (Nomad CE refuses one)")
	}
	for name, want := range map[string]bool{"all": true, "default": true, "gpu": false} {
		if IsBuiltInNodePool(name) != want {
			t.Errorf("IsBuiltInNodePool(%q) != %v", name, want)
		}
	}
}
