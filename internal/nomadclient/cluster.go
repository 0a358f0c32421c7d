package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// ClusterStatus is what berth reports about the servers of the region the
// client talks to: Raft membership, autopilot's health verdict, the
// servers' versions, and the answering agent's own health.
type ClusterStatus struct {
	// Region is the region of the server that answered; Regions every
	// region the cluster knows of (federation), sorted.
	Region  string
	Regions []string
	// Datacenters are the datacenters of the region's client nodes, sorted.
	Datacenters []string
	// Leader is the Raft address (host:port) of the leader; "" with none.
	Leader string
	// Healthy and FailureTolerance are autopilot's: whether every server
	// is healthy, and how many could fail without losing quorum.
	Healthy          bool
	FailureTolerance int
	// Servers are the Raft peers, sorted by name.
	Servers []ClusterServer
	// Agent is the answering agent's /v1/agent/health; nil when it could
	// not be read, AgentError then says why.
	Agent      *AgentHealth
	AgentError string
}

// ClusterServer is one Raft peer.
type ClusterServer struct {
	ID, Name, Address string
	Leader, Voter     bool
	// Version is the Nomad version the server's gossip tags advertise
	// ("" when it is not a gossip member the agent knows).
	Version string
	// Status is the server's gossip (Serf) status: alive, failed, left.
	Status string
	// Healthy is autopilot's verdict on the server.
	Healthy bool
}

// AgentHealth is an agent's health as /v1/agent/health reports it; a
// part is nil when the agent does not run it (a client-only agent has no
// server part).
type AgentHealth struct {
	Client, Server *AgentPartHealth
}

// AgentPartHealth is one part of an agent's health.
type AgentPartHealth struct {
	OK      bool
	Message string
}

// ClusterStatus reads the cluster's state. A server that is down is
// reported unhealthy, not as an error: autopilot answers 429 with its
// report when something is unhealthy, and that report is the answer.
func (c *Client) ClusterStatus(ctx context.Context) (*ClusterStatus, error) {
	out := &ClusterStatus{}
	raft, err := readRetry(ctx, c, "read raft configuration", func(ctx context.Context) (*api.RaftConfiguration, error) {
		return c.api.Operator().RaftGetConfiguration(c.query(ctx, nil))
	})
	if err != nil {
		return nil, fmt.Errorf("reading the Raft configuration: %w", err)
	}
	health, err := readRetry(ctx, c, "read autopilot health", func(ctx context.Context) (*api.OperatorHealthReply, error) {
		h, _, err := c.api.Operator().AutopilotServerHealth(c.query(ctx, nil))
		if statusCode(err) == 429 {
			// Autopilot's "something is unhealthy": the body is the report.
			return decodeErrorBody[api.OperatorHealthReply](err)
		}
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading autopilot's server health: %w", err)
	}
	members, err := readRetry(ctx, c, "read server members", func(ctx context.Context) (*api.ServerMembers, error) {
		return c.api.Agent().MembersOpts(c.query(ctx, nil))
	})
	if err != nil {
		return nil, fmt.Errorf("reading the server members: %w", err)
	}
	if out.Leader, err = readRetry(ctx, c, "read leader", func(ctx context.Context) (string, error) {
		var leader string
		_, err := c.api.Raw().Query("/v1/status/leader", &leader, c.query(ctx, nil))
		return leader, err
	}); err != nil {
		return nil, fmt.Errorf("reading the leader: %w", err)
	}
	if out.Regions, err = readRetry(ctx, c, "list regions", func(ctx context.Context) ([]string, error) {
		var regions []string
		_, err := c.api.Raw().Query("/v1/regions", &regions, c.query(ctx, nil))
		return regions, err
	}); err != nil {
		return nil, fmt.Errorf("listing regions: %w", err)
	}
	sort.Strings(out.Regions)
	nodes, err := readRetry(ctx, c, "list nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		n, _, err := c.api.Nodes().List(c.query(ctx, nil))
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	out.Datacenters = nodeDatacenters(nodes)
	out.Region = members.ServerRegion
	out.Healthy, out.FailureTolerance = health.Healthy, health.FailureTolerance
	out.Servers = clusterServers(raft, health, members)
	out.Agent, err = c.agentHealth(ctx)
	if err != nil {
		out.AgentError = err.Error()
	}
	return out, nil
}

// agentHealth reads /v1/agent/health. Nomad answers 500 with the same
// report when a part is unhealthy.
func (c *Client) agentHealth(ctx context.Context) (*AgentHealth, error) {
	h, err := readRetry(ctx, c, "read agent health", func(ctx context.Context) (*api.AgentHealthResponse, error) {
		var h api.AgentHealthResponse
		_, err := c.api.Raw().Query("/v1/agent/health", &h, c.query(ctx, nil))
		if statusCode(err) == 500 {
			if r, derr := decodeErrorBody[api.AgentHealthResponse](err); derr == nil && (r.Client != nil || r.Server != nil) {
				return r, nil
			}
		}
		return &h, err
	})
	if err != nil {
		return nil, err
	}
	part := func(p *api.AgentHealth) *AgentPartHealth {
		if p == nil {
			return nil
		}
		return &AgentPartHealth{OK: p.Ok, Message: p.Message}
	}
	return &AgentHealth{Client: part(h.Client), Server: part(h.Server)}, nil
}

// decodeErrorBody decodes the body of an unexpected answer as T; the
// answer's error is returned when the body is not a T.
func decodeErrorBody[T any](err error) (*T, error) {
	var ure api.UnexpectedResponseError
	var pure *api.UnexpectedResponseError
	body := ""
	switch {
	case errors.As(err, &ure):
		body = ure.Body()
	case errors.As(err, &pure) && pure != nil:
		body = pure.Body()
	}
	var v T
	if body == "" || json.Unmarshal([]byte(body), &v) != nil {
		return nil, err
	}
	return &v, nil
}

func nodeDatacenters(nodes []*api.NodeListStub) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range nodes {
		if n != nil && n.Datacenter != "" && !seen[n.Datacenter] {
			seen[n.Datacenter] = true
			out = append(out, n.Datacenter)
		}
	}
	sort.Strings(out)
	return out
}

// clusterServers joins the Raft peers with autopilot's verdicts (by Raft
// ID) and the gossip members (by RPC address, else by name).
func clusterServers(raft *api.RaftConfiguration, health *api.OperatorHealthReply, members *api.ServerMembers) []ClusterServer {
	byID := map[string]api.ServerHealth{}
	for _, s := range health.Servers {
		byID[s.ID] = s
	}
	byAddr, byName := map[string]*api.AgentMember{}, map[string]*api.AgentMember{}
	if members != nil {
		for _, m := range members.Members {
			if m == nil {
				continue
			}
			byName[m.Name] = m
			if addr, port := m.Tags["rpc_addr"], m.Tags["port"]; addr != "" && port != "" {
				byAddr[net.JoinHostPort(addr, port)] = m
			}
		}
	}
	var out []ClusterServer
	if raft == nil {
		return out
	}
	for _, p := range raft.Servers {
		if p == nil {
			continue
		}
		s := ClusterServer{ID: p.ID, Name: p.Node, Address: p.Address, Leader: p.Leader, Voter: p.Voter}
		h, ok := byID[p.ID]
		if ok {
			s.Healthy, s.Status = h.Healthy, h.SerfStatus
			if s.Name == "" || s.Name == "(unknown)" {
				s.Name = h.Name
			}
		}
		m := byAddr[p.Address]
		if m == nil {
			m = byName[s.Name]
		}
		if m != nil {
			s.Version, s.Status = m.Tags["build"], m.Status
		} else if ok {
			s.Version = h.Version
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
