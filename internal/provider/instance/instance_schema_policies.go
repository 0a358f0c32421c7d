package instance

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// The lifecycle policies of berth_instance. Each policy object is optional
// and null when not set, which means "Nomad's default for the job type":
// nothing is sent and nothing is stored, and a change made in Nomad to a
// policy left unset shows as drift that the next apply resets. Inside a set
// policy every field is optional and computed without a default: a field
// left out is filled in by Nomad and read back, so the policy in state is
// always Nomad's whole policy.

const policyUnsetDoc = " When unset, Nomad's default for the job type applies; a change made in Nomad then shows as drift " +
	"and the next apply resets it. Fields left out of a set block are filled in by Nomad and read back; a change made in " +
	"Nomad to one of those is taken over rather than reset."

// The fields of a policy: optional, filled in by Nomad when left out. A
// field left out keeps the value state has from Nomad while other
// attributes change (UseStateForUnknown), rather than showing as "known
// after apply" in every plan.

func policyDuration(desc string) schema.StringAttribute {
	a := durationAttr(desc, "")
	a.PlanModifiers = []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return a
}

func policyInt(desc string, atLeast int64) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: desc,
		Validators:    []validator.Int64{int64validator.AtLeast(atLeast)},
		PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}}
}

func policyBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, Computed: true, MarkdownDescription: desc,
		PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}}
}

func policyEnum(desc string, values []string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true,
		MarkdownDescription: desc + " One of " + shared.BacktickList(values) + ".",
		Validators:          []validator.String{stringvalidator.OneOf(values...)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

// policyAttributes are the instance's job and group policies, all in one
// nested attribute: each top-level attribute adds to the cost of every
// value in a plan, a nested one hardly (DESIGN.md, "Where a plan's time
// goes").
func policyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{"policies": schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Lifecycle policies of the job and its group: `priority`, `restart`, `reschedule`, `migrate` and " +
			"`ephemeral_disk`. Each one left out (or the whole attribute) means Nomad's default for the job type: nothing is " +
			"sent, and a change made to it in Nomad shows as drift that the next apply resets.",
		Attributes: groupPolicyAttributes(),
	}}
}

func groupPolicyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"priority": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Job priority, used by Nomad's scheduler to order evaluations and to preempt lower-priority work. " +
				"Nomad's servers accept up to their `job_max_priority` (100 unless configured). When unset, Nomad's default `50` applies " +
				"and a change made in Nomad shows as drift.",
			Validators: []validator.Int64{int64validator.Between(instance.MinPriority, instance.MaxPriority)},
		},
		"restart": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "How Nomad restarts a failed task in place (the group's `restart` block). Nomad's defaults: 2 attempts " +
				"in 30m with a 15s delay, mode `fail` for service and system jobs; 3 attempts in 24h for batch jobs." + policyUnsetDoc,
			Attributes: map[string]schema.Attribute{
				"attempts":         policyInt("Restarts allowed within `interval`. `0` means a failed task is not restarted.", 0),
				"interval":         policyDuration("Window in which `attempts` are counted; at least `5s`."),
				"delay":            policyDuration("Wait before restarting a task; `attempts` × `delay` must fit in `interval`."),
				"mode":             policyEnum("What happens when the attempts are used up: `fail` fails the allocation (then `reschedule` applies), `delay` waits for the next interval. `delay` needs `attempts` > 0.", instance.RestartModes()),
				"render_templates": policyBool("Re-render templates on restart."),
			},
		},
		"reschedule": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "How Nomad replaces a failed allocation on another node (the group's `reschedule` block). Nomad's " +
				"defaults for service jobs: unlimited attempts, `30s` delay growing `exponential`ly up to `1h`; for batch jobs: 1 attempt in " +
				"24h, `5s` `constant` delay. System jobs have none and refuse one. `{ attempts = 0, unlimited = false }` turns rescheduling off." + policyUnsetDoc,
			Attributes: map[string]schema.Attribute{
				"attempts":       policyInt("Reschedules allowed within `interval`; with attempts > 0 set `unlimited = false`.", 0),
				"interval":       policyDuration("Window in which `attempts` are counted; at least `15s` when attempts are limited."),
				"delay":          policyDuration("Wait before the first reschedule; at least `5s`."),
				"delay_function": policyEnum("How the delay grows between reschedules.", instance.DelayFunctions()),
				"max_delay":      policyDuration("Upper bound of the delay (not used by `constant`); at least `5s` and at least `delay`."),
				"unlimited":      policyBool("Reschedule without limit."),
			},
		},
		"migrate": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "How allocations move off a draining node (the group's `migrate` block; service jobs only). Nomad's " +
				"defaults: one at a time, `checks`, `10s` minimum healthy time, `5m` healthy deadline." + policyUnsetDoc,
			Attributes: map[string]schema.Attribute{
				"max_parallel":     policyInt("Allocations migrated at once.", 0),
				"health_check":     policyEnum("What makes a migrated allocation healthy.", instance.MigrateHealthChecks()),
				"min_healthy_time": policyDuration("How long a migrated allocation must be healthy."),
				"healthy_deadline": policyDuration("How long a migrated allocation may take to become healthy; at least `min_healthy_time`."),
			},
		},
		"ephemeral_disk": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Each allocation's ephemeral disk (the group's `ephemeral_disk` block); Nomad's default is `300` MiB, " +
				"not sticky, not migrated. With `node_reservation`, `size` (or the default) is what each allocation is charged for disk." + policyUnsetDoc,
			Attributes: map[string]schema.Attribute{
				"size":    policyInt("Disk in MiB; at least `10`, and more than any service's `policies.logs` take.", 10),
				"sticky":  policyBool("Try to place a replacement allocation on the same node and keep the data."),
				"migrate": policyBool("Copy the data to a replacement allocation on another node (has an effect only with `sticky`)."),
			},
		},
	}
}

// servicePolicyAttributes are a service's (task's) settings, in one nested
// attribute for the same reason.
func servicePolicyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{"policies": schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The task's lifecycle settings: `kill_timeout`, `shutdown_delay`, `user`, `logs` and `meta`. Each one " +
			"left out (or the whole attribute) means Nomad's default: nothing is sent, and a change made to it in Nomad shows as " +
			"drift that the next apply resets.",
		Attributes: taskPolicyAttributes(),
	}}
}

func taskPolicyAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kill_timeout": schema.StringAttribute{
			CustomType: timetypes.GoDurationType{}, Optional: true,
			MarkdownDescription: "Time between `kill_signal` and `SIGKILL` when the task is stopped; at least `0s` and, for " +
				"service jobs, at most the instance's `update.progress_deadline`. A Go duration such as `30s`. When unset, Nomad's default `5s` " +
				"applies and a change made in Nomad shows as drift.",
		},
		"shutdown_delay": schema.StringAttribute{
			CustomType: timetypes.GoDurationType{}, Optional: true,
			MarkdownDescription: "Wait between deregistering the service's check and stopping the task; at least `0s`. A Go " +
				"duration such as `5s`. When unset, Nomad's default (none) applies and a change made in Nomad shows as drift.",
		},
		"user": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "User the task runs as, for drivers that support it. Default: the driver's own (`nobody` for `exec`, the Nomad client's user for `raw_exec`, the image's for `docker`).",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"logs": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Log rotation of the task's stdout and stderr (the task's `logs` block). Nomad's default: 10 files of " +
				"10 MiB. `max_files` × `max_file_size_mb` must stay below the instance's `policies.ephemeral_disk.size`." + policyUnsetDoc,
			Attributes: map[string]schema.Attribute{
				"max_files":        policyInt("Rotated files kept per stream; at least `1`.", 1),
				"max_file_size_mb": policyInt("Size of one file in MiB; at least `1`.", 1),
			},
		},
		"meta": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Task meta, seen by the task as `NOMAD_META_<key>`. Keys starting with `berth.` are reserved for berth.",
		},
	}
}
