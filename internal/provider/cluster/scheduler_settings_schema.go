package cluster

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// schedulerSettingsDocs are the attributes' descriptions, shared by the
// resource and the data source.
var schedulerSettingsDocs = map[string]string{
	"id":     "The region's name: there is one scheduler configuration per region.",
	"region": "The region whose scheduler configuration this is: the provider's `region`, or the region of the agent berth talks to.",
	"scheduler_algorithm": "How the scheduler places allocations: `binpack` fills nodes before using others, `spread` " +
		"spreads allocations across nodes.",
	"preemption": "Whether each scheduler may evict allocations of lower priority to place higher-priority work, by job type.",
	"system":     "Preemption for `system` jobs.",
	"sysbatch":   "Preemption for `sysbatch` jobs.",
	"batch":      "Preemption for `batch` jobs.",
	"service":    "Preemption for `service` jobs.",
	"memory_oversubscription": "Whether tasks may set `memory_max` and use memory above their reserved `memory` when the " +
		"node has it free.",
	"reject_job_registration": "Whether Nomad refuses job registrations, dispatches and scaling, except with a management " +
		"token: a freeze during an incident or a maintenance window.",
	"pause_eval_broker": "Whether the leader's evaluation broker is paused: while it is, Nomad schedules nothing (jobs " +
		"are registered but not placed). For incident response.",
}

var defaultPreemption = nomadclient.NomadDefaultSchedulerSettings.Preemption

func schedulerSettingsSchema() schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	d := schedulerSettingsDocs
	flag := func(name string, def bool) schema.BoolAttribute {
		return schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(def),
			MarkdownDescription: d[name] + defaultDoc(def)}
	}
	return schema.Schema{
		MarkdownDescription: "The scheduler configuration of the provider's region (`nomad operator scheduler " +
			"set-config`): the algorithm, preemption per job type, memory oversubscription, and the two switches for " +
			"incidents. Every field is managed: one left out of the configuration is Nomad's built-in default, so a change " +
			"made in Nomad shows in the plan and the apply puts it back. Every write (create, update, destroy) is " +
			"check-and-set against the configuration its plan saw: a change made in Nomad after the plan fails the apply " +
			"and nothing is written. A create's plan shows the configuration it takes over (`found`); destroy puts " +
			"exactly that back. Needs `operator:write` (and `operator:read`) when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, PlanModifiers: keep, MarkdownDescription: d["id"]},
			"region": schema.StringAttribute{Computed: true, PlanModifiers: keep, MarkdownDescription: d["region"]},
			"scheduler_algorithm": schema.StringAttribute{Optional: true, Computed: true,
				Default:             stringdefault.StaticString(nomadclient.NomadDefaultSchedulerSettings.Algorithm),
				Validators:          []validator.String{stringvalidator.OneOf(nomadclient.SchedulerAlgorithms...)},
				MarkdownDescription: d["scheduler_algorithm"] + " Defaults to `binpack`."},
			"preemption": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default: objectdefault.StaticValue(types.ObjectValueMust(preemptionTypes, map[string]attr.Value{
					"system": types.BoolValue(defaultPreemption.System), "sysbatch": types.BoolValue(defaultPreemption.SysBatch),
					"batch": types.BoolValue(defaultPreemption.Batch), "service": types.BoolValue(defaultPreemption.Service),
				})),
				MarkdownDescription: d["preemption"] + " Left out, or an attribute of it left out: Nomad's default " +
					"(on for `system`, off for the others).",
				Attributes: map[string]schema.Attribute{
					"system":   flag("system", defaultPreemption.System),
					"sysbatch": flag("sysbatch", defaultPreemption.SysBatch),
					"batch":    flag("batch", defaultPreemption.Batch),
					"service":  flag("service", defaultPreemption.Service),
				}},
			"memory_oversubscription": flag("memory_oversubscription", false),
			"reject_job_registration": flag("reject_job_registration", false),
			"pause_eval_broker":       flag("pause_eval_broker", false),
			"found":                   foundSchema(),
		},
	}
}

// foundSchema is the configuration berth found when it took it over. A
// create's plan reads it, so the plan carries what the apply takes over:
// Terraform plans a create again at apply, and a configuration changed in
// between makes that plan differ, which fails the apply before any write.
func foundSchema() schema.SingleNestedAttribute {
	d := schedulerSettingsDocs
	str := schema.StringAttribute{Computed: true, MarkdownDescription: d["scheduler_algorithm"]}
	flag := func(name string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: d[name]}
	}
	return schema.SingleNestedAttribute{Computed: true,
		PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
		MarkdownDescription: "The configuration as berth found it when it took it over: read by the plan of a create " +
			"(so the plan shows what the apply takes over), or by the refresh after an import or a move. Destroy puts " +
			"exactly this back. Applying a create whose `found` no longer matches Nomad fails before anything is written.",
		Attributes: map[string]schema.Attribute{
			"scheduler_algorithm": str,
			"preemption": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: d["preemption"],
				Attributes: map[string]schema.Attribute{
					"system": flag("system"), "sysbatch": flag("sysbatch"), "batch": flag("batch"), "service": flag("service"),
				}},
			"memory_oversubscription": flag("memory_oversubscription"),
			"reject_job_registration": flag("reject_job_registration"),
			"pause_eval_broker":       flag("pause_eval_broker"),
		},
	}
}

// foundTypes is the found attribute's object type.
var foundTypes = map[string]attr.Type{
	"scheduler_algorithm":     types.StringType,
	"preemption":              types.ObjectType{AttrTypes: preemptionTypes},
	"memory_oversubscription": types.BoolType,
	"reject_job_registration": types.BoolType,
	"pause_eval_broker":       types.BoolType,
}

func defaultDoc(def bool) string {
	if def {
		return " Defaults to `true`."
	}
	return " Defaults to `false`."
}

var preemptionTypes = map[string]attr.Type{
	"system": types.BoolType, "sysbatch": types.BoolType, "batch": types.BoolType, "service": types.BoolType,
}

func schedulerSettingsDataSourceSchema() dschema.Schema {
	d := schedulerSettingsDocs
	str := func(name string) dschema.StringAttribute {
		return dschema.StringAttribute{Computed: true, MarkdownDescription: d[name]}
	}
	flag := func(name string) dschema.BoolAttribute {
		return dschema.BoolAttribute{Computed: true, MarkdownDescription: d[name]}
	}
	return dschema.Schema{
		MarkdownDescription: "The scheduler configuration of the provider's region, as Nomad holds it (`nomad operator " +
			"scheduler get-config`). Needs `operator:read` when ACLs are on.",
		Attributes: map[string]dschema.Attribute{
			"id":                  str("id"),
			"region":              str("region"),
			"scheduler_algorithm": str("scheduler_algorithm"),
			"preemption": dschema.SingleNestedAttribute{Computed: true, MarkdownDescription: d["preemption"],
				Attributes: map[string]dschema.Attribute{
					"system": flag("system"), "sysbatch": flag("sysbatch"), "batch": flag("batch"), "service": flag("service"),
				}},
			"memory_oversubscription": flag("memory_oversubscription"),
			"reject_job_registration": flag("reject_job_registration"),
			"pause_eval_broker":       flag("pause_eval_broker"),
			"modify_index": dschema.Int64Attribute{Computed: true,
				MarkdownDescription: "The Raft index at which the configuration was last written."},
		},
	}
}
