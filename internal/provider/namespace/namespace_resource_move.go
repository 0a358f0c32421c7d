package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &namespaceResource{}

// nomadNamespaceState is what berth_namespace takes from the state of the
// other Nomad provider's nomad_namespace (hashicorp/nomad 2.x), for
// `moved { from = nomad_namespace.x to = berth_namespace.x }`. Its nested
// settings are blocks, so lists of at most one object.
type nomadNamespaceState struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Quota        string            `json:"quota"`
	Meta         map[string]string `json:"meta"`
	Capabilities []struct {
		EnabledTaskDrivers   []string `json:"enabled_task_drivers"`
		DisabledTaskDrivers  []string `json:"disabled_task_drivers"`
		EnabledNetworkModes  []string `json:"enabled_network_modes"`
		DisabledNetworkModes []string `json:"disabled_network_modes"`
	} `json:"capabilities"`
	NodePoolConfig []nomadAccessState `json:"node_pool_config"`
	VaultConfig    []nomadAccessState `json:"vault_config"`
	ConsulConfig   []nomadAccessState `json:"consul_config"`
}

type nomadAccessState struct {
	Default string   `json:"default"`
	Allowed []string `json:"allowed"`
	Denied  []string `json:"denied"`
}

// MoveState takes a nomad_namespace over without touching the namespace:
// its settings become berth's state, and the refresh that follows reads
// Nomad, so the next plan is empty when the configuration says the same.
func (r *namespaceResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_namespace", func(ctx context.Context, src nomadNamespaceState, diags *diag.Diagnostics) namespaceModel {
		ns := nomadclient.Namespace{Name: src.Name, Description: src.Description, Quota: src.Quota, Meta: src.Meta}
		if len(src.Capabilities) > 0 {
			c := src.Capabilities[0]
			ns.Capabilities = &nomadclient.NamespaceCapabilities{EnabledTaskDrivers: c.EnabledTaskDrivers,
				DisabledTaskDrivers: c.DisabledTaskDrivers, EnabledNetworkModes: c.EnabledNetworkModes, DisabledNetworkModes: c.DisabledNetworkModes}
		}
		ns.NodePools, ns.Vault, ns.Consul = movedAccess(src.NodePoolConfig), movedAccess(src.VaultConfig), movedAccess(src.ConsulConfig)
		m, d := shared.NullResourceModel[namespaceModel](ctx, namespaceSchema())
		diags.Append(d...)
		m.Description, m.Meta = types.StringNull(), types.MapNull(types.StringType)
		m.fromNamespace(ctx, &ns, diags)
		return m
	})}
}

func movedAccess(l []nomadAccessState) *nomadclient.NamespaceAccess {
	if len(l) == 0 {
		return nil
	}
	return &nomadclient.NamespaceAccess{Default: l[0].Default, Allowed: l[0].Allowed, Denied: l[0].Denied}
}
