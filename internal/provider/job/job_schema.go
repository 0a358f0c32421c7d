package job

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// The values of plan_failures.
const (
	planFailuresError = "error"
	planFailuresWarn  = "warn"
)

func jobSchema(ctx context.Context) schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return schema.Schema{
		MarkdownDescription: "Any Nomad job, from its jobspec: HCL2 exactly as `nomad job run` reads it, or the JSON of " +
			"Nomad's API job. An HCL2 jobspec is parsed at plan by the cluster's own parser, so every block that cluster " +
			"knows works (`terraform validate` checks its syntax and variables without a cluster), the apply " +
			"waits for what the job's type runs to, and every refresh compares the job in Nomad with what the jobspec " +
			"sets: a field changed in Nomad shows in the next plan by name (`drift`), and the apply puts it back. Fields " +
			"Nomad fills in itself never show. Use `berth_instance` for a typed application; use `berth_job` for any " +
			"other job (several groups, periodic, parameterized, sysbatch, Connect, CSI, …).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "`<namespace>/<name>`."},
			"jobspec": schema.StringAttribute{Required: true,
				MarkdownDescription: "The job: HCL2 (a `job` block, with `variable` blocks if it has any) or JSON of Nomad's " +
					"API job, bare or wrapped as `nomad job inspect` prints it (`{\"Job\": {…}}`). The job's ID (the " +
					"`job` block's label) and namespace are read from it; changing either replaces the job."},
			"format": schema.StringAttribute{Optional: true, Computed: true,
				Validators: []validator.String{stringvalidator.OneOf(jobspec.Formats()...)},
				MarkdownDescription: "How `jobspec` is written: " + shared.BacktickList(jobspec.Formats()) + ". Default: JSON when " +
					"it starts with `{`, HCL2 otherwise; state holds the format in effect."},
			"variables": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Values of the jobspec's HCL2 `variable` blocks, as `nomad job run -var` gives them. " +
					"They are kept in state: put secrets in Nomad Variables instead."},
			"variables_wo": schema.MapAttribute{Optional: true, WriteOnly: true, Sensitive: true, ElementType: types.StringType,
				MarkdownDescription: "Secrets for the job, **write-only**: needs Terraform 1.11 or later, and the values are " +
					"never stored in the plan or state. berth writes them to the job's Nomad Variable `nomad/jobs/<name>` " +
					"(which every task of the job may read through its workload identity, with no ACL policy) before it " +
					"registers the job, so the jobspec's templates read them: " +
					"`{{ with nomadVar \"nomad/jobs/<name>\" }}{{ .password }}{{ end }}`. Requires `variables_wo_version`; " +
					"**bump the version to rotate** them. Removing both deletes the Variable after the job is registered " +
					"without them; destroy deletes it after the job is gone. berth writes and deletes only a Variable it " +
					"wrote, with check-and-set: it creates one only where none is, and rewrites or deletes it only at the " +
					"modify index it recorded, so a Variable someone else holds at that path (a `berth_variable`, an " +
					"operator's) fails the apply here before the job is registered and stays as it is, and one rewritten " +
					"by someone else is left on destroy, with a warning."},
			"variables_wo_version": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "Version of `variables_wo`, stored in state: set it with `variables_wo`, and change it " +
					"whenever they change; only then are they written again."},
			"node_reservation": schema.StringAttribute{Optional: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{shared.ReservationIDValidator()},
				MarkdownDescription: "ID of a `berth_node_reservation` to place the whole job into: the job is pinned to the " +
					"reservation's node (a constraint on `${node.unique.id}` added at registration, which drift does not " +
					"report), and what it takes (every group's tasks' cpu and memory and its ephemeral disk, times its count, " +
					"with Nomad's defaults where the jobspec sets none) is charged to the reservation's budget before the job " +
					"is registered and released after it is destroyed; it takes its room from the reservation's hold, so no " +
					"other job can. A plan that would not fit warns and the apply refuses before writing anything. Not " +
					"allowed on `system` and `sysbatch` jobs, which span nodes. Changing it replaces the job."},
			"name": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The job's ID, from the jobspec."},
			"namespace": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The job's namespace: the jobspec's, or the provider's when it names none."},
			"type": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The job's type in Nomad: `service`, `batch`, `system` or `sysbatch`."},
			"wait_for_healthy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Wait, after each registration, for what the job runs to: a service job's deployment " +
					"healthy (its placement, with `health_check = \"manual\"`), a batch or sysbatch job's allocations " +
					"complete, a system job on every eligible node. Periodic and parameterized jobs only register. A " +
					"failure quotes Nomad's task events. Bounded by `timeouts`. Default `true`."},
			"purge_on_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Purge the job from Nomad on destroy (otherwise it is stopped and kept as dead until " +
					"Nomad garbage-collects it). Default `true`."},
			"job_modify_index": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "The job's modify index in Nomad when berth last read it."},
			"job_version": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "The job's version in Nomad."},
			"deployment_id": schema.StringAttribute{Computed: true,
				MarkdownDescription: "ID of the deployment the last apply followed; empty when none."},
			"drift": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Where the job in Nomad differs from what the jobspec sets, one field per entry, " +
					"named as the jobspec names it (`group \"web\" / task \"app\" / resources.memory: 256 → 512`, Nomad's " +
					"value first). Filled by each refresh; a plan with drift shows it going to `[]`, and the apply " +
					"registers the jobspec again."},
			"scheduler_plan": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What Nomad's scheduler said, in a dry run at plan time, the planned registration " +
					"does to each group, in `nomad job plan`'s words (`\"web\" = \"2 create\"`, `\"2 in-place update, 1 " +
					"ignore\"`, `\"1 create/destroy update, 1 canary\"`). Planned for each create or change, kept in " +
					"state until the next; unknown (`known after apply`) when the jobspec is, when Nomad could not be " +
					"asked, or when the job is not at rest (an evaluation pending, an allocation starting, a deployment " +
					"under way, a batch allocation running), since its counts would move before the apply. If the " +
					"cluster changes between plan and apply so that the counts differ, Terraform stops the apply " +
					"(\"inconsistent final plan\"): plan again."},
			"plan_failures": schema.StringAttribute{Optional: true,
				Validators: []validator.String{stringvalidator.OneOf(planFailuresError, planFailuresWarn)},
				MarkdownDescription: "What a plan does when Nomad's scheduler says it could not place part of the job " +
					"(a dry run of the registration, as `nomad job plan`): `error` (the default) fails the plan of a new " +
					"job that the apply would wait for, naming each group and why (\"memory exhausted on 3 nodes\", " +
					"\"constraint `${attr.kernel.name} = windows` filtered 4 nodes\"); `warn` only warns. A change to an " +
					"existing job, or one with `wait_for_healthy = false`, always warns: an error there could keep " +
					"`terraform destroy` from running."},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
