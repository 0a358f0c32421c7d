package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewClusterDataSource builds the berth_cluster data source.
func NewClusterDataSource() datasource.DataSource {
	return shared.NewDataSource("cluster", clusterDataSourceSchema, readCluster)
}

// clusterModel is berth_cluster's state; every attribute is computed.
type clusterModel struct {
	Region           types.String         `tfsdk:"region"`
	Regions          []types.String       `tfsdk:"regions"`
	Datacenters      []types.String       `tfsdk:"datacenters"`
	LeaderAddress    types.String         `tfsdk:"leader_address"`
	Healthy          types.Bool           `tfsdk:"healthy"`
	FailureTolerance types.Int64          `tfsdk:"failure_tolerance"`
	ServerCount      types.Int64          `tfsdk:"server_count"`
	HealthyServers   types.Int64          `tfsdk:"healthy_server_count"`
	Servers          []clusterServerModel `tfsdk:"servers"`
	Agent            *agentHealthModel    `tfsdk:"agent_health"`
}

type clusterServerModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	Address types.String `tfsdk:"address"`
	Leader  types.Bool   `tfsdk:"leader"`
	Voter   types.Bool   `tfsdk:"voter"`
	Version types.String `tfsdk:"version"`
	Status  types.String `tfsdk:"status"`
	Healthy types.Bool   `tfsdk:"healthy"`
}

type agentHealthModel struct {
	ClientOK      types.Bool   `tfsdk:"client_ok"`
	ClientMessage types.String `tfsdk:"client_message"`
	ServerOK      types.Bool   `tfsdk:"server_ok"`
	ServerMessage types.String `tfsdk:"server_message"`
}

func clusterDataSourceSchema() schema.Schema {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	boolean := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	}
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	stringList := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	return schema.Schema{
		MarkdownDescription: "The health of the Nomad servers of the provider's region, as a team checks it before and after an " +
			"apply: Raft membership and leader, autopilot's verdict, each server's version, and the health of the agent " +
			"berth talks to. A server that is down is reported unhealthy; it does not fail the read. Needs `operator:read` " +
			"and `node:read` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"region":         str("Region of the server that answered."),
			"regions":        stringList("Every region the cluster knows of (federated regions included), sorted."),
			"datacenters":    stringList("Datacenters of the region's client nodes, sorted."),
			"leader_address": str("Raft address (`host:port`) of the leader, as `/v1/status/leader` reports it; empty when there is none."),
			"healthy": boolean("Autopilot's verdict: `true` when every server is healthy. A server that is down, not " +
				"yet stable or lagging behind the leader makes it `false`."),
			"failure_tolerance":    count("How many more servers could fail without losing quorum, as autopilot computes it."),
			"server_count":         count("Number of servers in the Raft configuration."),
			"healthy_server_count": count("Number of those servers autopilot reports healthy."),
			"servers": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The servers of the Raft configuration, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":      str("Raft ID of the server."),
					"name":    str("Server name (`<name>.<region>`)."),
					"address": str("Raft address, `host:port`."),
					"leader":  boolean("Whether it is the Raft leader."),
					"voter":   boolean("Whether it has a vote in Raft."),
					"version": str("Nomad version the server advertises; empty when the answering agent does not know the server."),
					"status":  str("Gossip (Serf) status of the server: `alive`, `failed`, `left`…"),
					"healthy": boolean("Autopilot's verdict on this server."),
				}},
			},
			"agent_health": schema.SingleNestedAttribute{
				Computed: true,
				MarkdownDescription: "Health of the agent berth talks to, as `/v1/agent/health` reports it; null when it " +
					"could not be read (a warning says why). A part the agent does not run (a client-only agent has no " +
					"server) is null.",
				Attributes: map[string]schema.Attribute{
					"client_ok":      boolean("Whether the agent's client is healthy (it knows servers)."),
					"client_message": str("Nomad's explanation of the client's health."),
					"server_ok":      boolean("Whether the agent's server is healthy (it has a leader)."),
					"server_message": str("Nomad's explanation of the server's health."),
				},
			},
		},
	}
}

func readCluster(ctx context.Context, data *shared.ProviderData, m *clusterModel, diags *diag.Diagnostics) {
	st, err := data.Nomad.ClusterStatus(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the Nomad cluster's status", err)
		return
	}
	if st.AgentError != "" {
		diags.AddWarning("Could not read the agent's health",
			"Nomad did not report the health of the agent at "+data.Nomad.Address()+": "+st.AgentError+
				". agent_health is null; the servers' health is still reported.")
	}
	*m = newClusterModel(st)
	tflog.Debug(ctx, "Read the Nomad cluster's status", map[string]any{
		"region": st.Region, "leader": st.Leader, "healthy": st.Healthy, "servers": len(st.Servers),
		"healthy_servers": m.HealthyServers.ValueInt64(), "failure_tolerance": st.FailureTolerance,
	})
}

func newClusterModel(st *nomadclient.ClusterStatus) clusterModel {
	m := clusterModel{
		Region: types.StringValue(st.Region), Regions: stringValues(st.Regions), Datacenters: stringValues(st.Datacenters),
		LeaderAddress: types.StringValue(st.Leader), Healthy: types.BoolValue(st.Healthy),
		FailureTolerance: types.Int64Value(int64(st.FailureTolerance)), ServerCount: types.Int64Value(int64(len(st.Servers))),
		Servers: make([]clusterServerModel, 0, len(st.Servers)),
	}
	var healthy int64
	for _, s := range st.Servers {
		if s.Healthy {
			healthy++
		}
		m.Servers = append(m.Servers, clusterServerModel{
			ID: types.StringValue(s.ID), Name: types.StringValue(s.Name), Address: types.StringValue(s.Address),
			Leader: types.BoolValue(s.Leader), Voter: types.BoolValue(s.Voter), Version: types.StringValue(s.Version),
			Status: types.StringValue(s.Status), Healthy: types.BoolValue(s.Healthy),
		})
	}
	m.HealthyServers = types.Int64Value(healthy)
	if a := st.Agent; a != nil {
		m.Agent = &agentHealthModel{ClientOK: types.BoolNull(), ClientMessage: types.StringNull(),
			ServerOK: types.BoolNull(), ServerMessage: types.StringNull()}
		if a.Client != nil {
			m.Agent.ClientOK, m.Agent.ClientMessage = types.BoolValue(a.Client.OK), types.StringValue(a.Client.Message)
		}
		if a.Server != nil {
			m.Agent.ServerOK, m.Agent.ServerMessage = types.BoolValue(a.Server.OK), types.StringValue(a.Server.Message)
		}
	}
	return m
}

// stringValues is ss as a list attribute's elements; never nil, so an
// empty list is [] rather than null.
func stringValues(ss []string) []types.String {
	out := make([]types.String, 0, len(ss))
	for _, s := range ss {
		out = append(out, types.StringValue(s))
	}
	return out
}
