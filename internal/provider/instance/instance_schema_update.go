package instance

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// updateStrategyAttributes are the update attributes that stay null unless
// set: null keeps berth's behavior from before they existed, so state
// stays small (see instance.ConfiguredUpdate).
func updateStrategyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"health_check": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "How a deployment decides that an allocation is healthy: " + shared.BacktickList(instance.HealthChecks()) +
				". `checks`: its tasks run and its services' checks pass; `task_states`: its tasks run; `manual`: only when " +
				"someone marks it healthy through Nomad's API (`PUT /v1/deployment/allocation-health/<deployment>`). " +
				"Unset: `checks` when a service has a `check`, `task_states` otherwise (without checks the two decide alike, " +
				"so berth treats them as the same). With `manual` an apply waits until " +
				"Nomad has placed the allocations, not for the deployment, which only a person can move on: `deployment_status` " +
				"says where it stood (usually `running`).",
			Validators: []validator.String{stringvalidator.OneOf(instance.HealthChecks()...)},
		},
		"stagger": schema.StringAttribute{
			CustomType: timetypes.GoDurationType{}, Optional: true,
			MarkdownDescription: "Pause between the rolling batches (`max_parallel` allocations each) of a system job's update. " +
				"Nomad 1.10 uses it for nothing else: a service job's deployment is paced by `max_parallel`, `min_healthy_time` " +
				"and health, and draining nodes by the `migrate` settings. A Go duration greater than `0`, such as `30s`. " +
				"Unset: Nomad's default, `30s`. When set, berth sends it (with `max_parallel`) at job level as well, where " +
				"Nomad's system scheduler reads it.",
		},
		"auto_promote": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Whether Nomad promotes a deployment's canaries on its own once they are all healthy. " +
				"Unset: `true` when `canary` is above `0`. `false` leaves the promotion to you: an apply that starts such " +
				"a deployment waits until the canaries are placed and healthy, then finishes with a warning, while the previous " +
				"allocations keep running next to them; `deployment_status` is `" + deploymentAwaitingPromotion + "`. " +
				"Change `promote_trigger` to promote. `true` needs `canary` above `0` (Nomad refuses it otherwise); " +
				"`false` without canaries changes nothing.",
		},
	}
}

// promoteTriggerAttribute is the top-level promote_trigger.
func promoteTriggerAttribute() schema.Attribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Any new value (a release number, a date) promotes the canaries of the instance's deployment " +
			"that awaits promotion (`update.auto_promote = false`) through Nomad's deployment promote API, without " +
			"registering a new job version: berth waits until the canaries are placed and healthy, promotes them, and waits " +
			"for the deployment to finish (unless `wait_for_healthy` is `false`; with `update.health_check = \"manual\"` it " +
			"neither waits for the canaries nor for the end, and Nomad refuses canaries not yet marked healthy). Changed " +
			"together with the services, it promotes the new deployment's canaries once they are healthy. When no " +
			"deployment awaits promotion, the apply warns and changes nothing; removing the attribute promotes nothing.",
	}
}
