package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &nodePoolResource{}

// nomadNodePoolState is what berth_node_pool takes from the state of the
// other Nomad provider's nomad_node_pool (hashicorp/nomad 2.x), for
// `moved { from = nomad_node_pool.x to = berth_node_pool.x }`. Its
// scheduler_config is a block (a list of at most one) whose
// memory_oversubscription is the string "enabled" or "disabled".
type nomadNodePoolState struct {
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	Meta            map[string]string `json:"meta"`
	SchedulerConfig []struct {
		SchedulerAlgorithm     string `json:"scheduler_algorithm"`
		MemoryOversubscription string `json:"memory_oversubscription"`
	} `json:"scheduler_config"`
}

// MoveState takes a nomad_node_pool over without touching the pool: its
// settings become berth's state, and the refresh that follows reads Nomad,
// so the next plan is empty when the configuration says the same.
func (r *nodePoolResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_node_pool", func(ctx context.Context, src nomadNodePoolState, diags *diag.Diagnostics) nodePoolModel {
		p := nomadclient.NodePool{Name: src.Name, Description: src.Description, Meta: src.Meta}
		if len(src.SchedulerConfig) > 0 {
			sc := src.SchedulerConfig[0]
			p.SchedulerAlgorithm = sc.SchedulerAlgorithm
			switch sc.MemoryOversubscription {
			case "enabled", "disabled":
				on := sc.MemoryOversubscription == "enabled"
				p.MemoryOversubscription = &on
			}
		}
		m := nodePoolModel{Description: types.StringNull(), Meta: types.MapNull(types.StringType)}
		m.fromNodePool(ctx, &p, diags)
		return m
	})}
}
