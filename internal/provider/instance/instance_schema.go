package instance

import (
	"context"
	"maps"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// Defaults the schema applies; they match what Nomad fills in, so a plan
// right after apply is empty.
const (
	defaultCPU           = 100
	defaultMemory        = 300
	defaultCheckInterval = "10s"
	defaultCheckTimeout  = "2s"
)

func instanceRoles() []string {
	out := make([]string, len(instance.Roles()))
	for i, r := range instance.Roles() {
		out[i] = string(r)
	}
	return out
}

// defaultUpdateObject is Nomad's update strategy as the value of "update".
func defaultUpdateObject() types.Object {
	a := schema.SingleNestedAttribute{Attributes: updateAttributes(), Computed: true}
	v, diags := shared.GoToTF(context.Background(), a, reflect.ValueOf(instance.DefaultUpdate()))
	if obj, ok := v.(types.Object); ok && !diags.HasError() {
		return obj
	}
	// Only a mismatch between Update and updateAttributes gets here; the
	// schema unit tests plan with this default and would fail.
	return types.ObjectNull(shared.AttributeTypes(a.Attributes))
}

func durationAttr(desc string, def string) schema.StringAttribute {
	a := schema.StringAttribute{
		CustomType: timetypes.GoDurationType{}, Optional: true, Computed: true,
		MarkdownDescription: desc + " A Go duration such as `10s` or `5m`.",
	}
	if def != "" {
		a.Default = stringdefault.StaticString(def)
	}
	return a
}

func Schema(ctx context.Context) schema.Schema {
	positive := []validator.Int64{int64validator.AtLeast(1)}
	s := schema.Schema{
		MarkdownDescription: "An application instance: one Nomad job (a `service` by default, or a run-once `batch` job, or a " +
			"`system` job on every node; see `type`) with one task group, whose services are its tasks. Applies wait for " +
			"the outcome (a healthy deployment, a completed run, every node running it) and explain failures with Nomad's task events; " +
			"`terraform plan` shows any change made in Nomad behind Terraform's back, field by field.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<namespace>/<name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Job ID and name. Changing it replaces the instance." + shared.NameRuleDoc,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{shared.NameValidator()},
			},
			"namespace": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Nomad namespace. Default: the provider's `namespace`. Changing it replaces the instance." + shared.NamespaceRuleDoc,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				Validators:          []validator.String{shared.NamespaceValidator()},
			},
			"type": jobTypeAttribute(),
			"datacenters": schema.ListAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				Default:             listdefault.StaticValue(types.ListValueMust(types.StringType, []attr.Value{types.StringValue("*")})),
				MarkdownDescription: "Datacenters the job may run in; globs allowed. Default `[\"*\"]`.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"node_pool": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Node pool to run in. Default: the namespace's default pool (`default`).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"node_reservation": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "ID of a `berth_node_reservation` to place the instance into: the job is pinned to the " +
					"reservation's node and its resources (services × replicas, plus the ephemeral disk, `policies.ephemeral_disk.size` or " +
					"Nomad's default 300 MiB, per allocation) are charged to the reservation's budget before the job is registered, and released after it " +
					"is destroyed; a plan that would not fit in what the reservation has left fails. Set `node_pool` to the node's " +
					"pool when it is not `default`. Changing it to another existing reservation (or adding or removing it) updates " +
					"the job in place: the new reservation is charged, the job is re-pinned and rolled out, then the old reservation's " +
					"charge is released. When the new ID is known only at apply (its reservation is created or replaced in the same " +
					"apply), the instance is replaced instead. Not allowed on `system` jobs, which span nodes. A `batch` job stays " +
					"charged after it completes, until it is destroyed: its next change runs it again.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(reservationUnknownAtPlan,
					"A node reservation known only at apply replaces the instance.", "A node reservation known only at apply replaces the instance.")},
				Validators: []validator.String{shared.ReservationIDValidator()},
			},
			"replicas": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Number of allocations (the task group's `count`; `count` itself is a Terraform meta-argument). When unset, berth leaves the count to others (an autoscaler, " +
					"`nomad job scale`): their changes are kept and never shown as drift, and this attribute reports the current count. " +
					"A new instance starts with 1. Not allowed on `system` jobs, where it reads null (one allocation per node).",
				Validators:    []validator.Int64{int64validator.AtLeast(0)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"running": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "`false` stops the job (it stays in Nomad's history); `true` starts it again. Default `true`.",
			},
			"network_mode": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(instance.DefaultNetworkMode),
				MarkdownDescription: "Group network mode: " + shared.BacktickList(instance.NetworkModes()) + ". Default `host`.",
				Validators:          []validator.String{stringvalidator.OneOf(instance.NetworkModes()...)},
			},
			"meta": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Job meta. Keys starting with `berth.` are reserved for berth.",
			},
			"services": schema.MapNestedAttribute{
				Required:            true,
				MarkdownDescription: "The services of the instance, keyed by name; each is one Nomad task. At least one must have role `main`.",
				Validators:          []validator.Map{mapvalidator.SizeAtLeast(1)},
				NestedObject:        schema.NestedAttributeObject{Attributes: serviceAttributes(positive)},
			},
			"volumes": schema.MapNestedAttribute{
				Optional: true,
				MarkdownDescription: "Host and CSI volumes the instance claims, keyed by the name its services' `mounts` use. " +
					"Nomad places the allocations on a node that has the volume (for example a `berth_volume`).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(instance.VolumeTypeHost),
						MarkdownDescription: "Volume type: `host` (a host volume) or `csi` (a CSI volume, e.g. a `berth_volume` with `type = \"csi\"`). Default `host`.",
						Validators:          []validator.String{stringvalidator.OneOf(instance.VolumeTypes()...)}},
					"volume": schema.StringAttribute{Required: true,
						MarkdownDescription: "Name of the volume, e.g. `berth_volume.data.name`; it must be in the instance's namespace. " +
							"With `per_alloc`, the name without the `[<index>]` suffix." + shared.LookupRuleDoc,
						Validators: []validator.String{shared.LookupNameValidator()}},
					"read_only": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Claim the volume read-only. Default `false`."},
					"per_alloc": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Give each allocation its own volume: Nomad appends `[<allocation index>]` to `volume`, so allocation 0 " +
							"claims `<volume>[0]`, allocation 1 `<volume>[1]`, and so on; those volumes must exist. " +
							"Not allowed on `system` jobs or with `update.canary`. Default `false`."},
					"access_mode": schema.StringAttribute{Optional: true,
						MarkdownDescription: "Access mode to claim. Host volumes: " + shared.BacktickList(instance.VolumeAccessModesFor(instance.VolumeTypeHost)) +
							"; CSI volumes: " + shared.BacktickList(instance.VolumeAccessModesFor(instance.VolumeTypeCSI)) +
							". Default: `single-node-writer`, or `single-node-reader-only` when `read_only`. It must be one the volume offers; " +
							"a CSI volume claimed by more than one allocation needs `per_alloc` or a `multi-node-*` mode.",
						Validators: []validator.String{stringvalidator.OneOf(instance.VolumeAccessModes()...)}},
					"attachment_mode": schema.StringAttribute{Optional: true,
						MarkdownDescription: "Attachment mode: " + shared.BacktickList(instance.VolumeAttachmentModes()) + ". Default `file-system`.",
						Validators:          []validator.String{stringvalidator.OneOf(instance.VolumeAttachmentModes()...)}},
				}},
			},
			"update": schema.SingleNestedAttribute{
				Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultUpdateObject()),
				MarkdownDescription: "Rolling deploy strategy. Defaults are Nomad's. Not allowed on `batch` jobs (it reads null there); " +
					"`system` jobs have no deployments: Nomad uses `max_parallel` (nodes updated at once) and `canary` must be 0.",
				Attributes: updateAttributes(),
			},
			"restart_triggers": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Arbitrary values; any change restarts the running allocations in place, one at a time, " +
					"without registering a new job version (for example a config file's hash).",
			},
			"promote_trigger": promoteTriggerAttribute(),
			"wait_for_healthy": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Wait for the outcome of each apply, or fail with the reason: for a `service` job a successful " +
					"deployment (two cases end the wait earlier: with `update.auto_promote = false` a deployment with canaries ends it " +
					"once they are placed and healthy, and with `update.health_check = \"manual\"` an apply waits only until Nomad has " +
					"placed the allocations), for a `batch` job every allocation of the new version exiting successfully, for a `system` " +
					"job its allocation running on every node the scheduler chose (see `type`). Always bounded by `timeouts`. Default `true`.",
			},
			"purge_on_destroy": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Purge the job from Nomad on destroy instead of leaving it stopped in history. Default `true`.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"job_version":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Job version in Nomad."},
			"job_modify_index": schema.Int64Attribute{Computed: true, MarkdownDescription: "Job modify index; berth registers with check-and-set against it."},
			"deployment_id":    schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the deployment the last apply followed; empty when none."},
			"deployment_status": schema.StringAttribute{Computed: true, MarkdownDescription: "Status of that deployment when the apply " +
				"ended, as Nomad names it (`successful`, `running`, `failed`, ...), or `" + deploymentAwaitingPromotion + "` when its " +
				"canaries are healthy and wait for a promotion (`update.auto_promote = false`)."},
		},
	}
	maps.Copy(s.Attributes, policyAttributes())
	maps.Copy(s.Attributes, placementAttributes())
	s.Attributes = withFixedObjectTypes(s.Attributes)
	return s
}

func updateAttributes() map[string]schema.Attribute {
	u := instance.DefaultUpdate()
	attrs := map[string]schema.Attribute{
		"max_parallel": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(int64(u.MaxParallel)),
			MarkdownDescription: "Allocations updated at once. `0` disables deployments.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
		"min_healthy_time":  durationAttr("How long an allocation must be healthy before it counts as healthy. Default `10s`.", shared.DurationValue(u.MinHealthyTime).ValueString()),
		"healthy_deadline":  durationAttr("How long an allocation may take to become healthy. Default `5m`.", shared.DurationValue(u.HealthyDeadline).ValueString()),
		"progress_deadline": durationAttr("How long a deployment may go without progress before it fails. Default `10m`.", shared.DurationValue(u.ProgressDeadline).ValueString()),
		"auto_revert": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Revert to the last stable version when a deployment fails. Default `false`."},
		"canary": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
			MarkdownDescription: "Canaries placed before a rolling update. Nomad promotes them once healthy unless `auto_promote` is `false`. Default `0`.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
	}
	maps.Copy(attrs, updateStrategyAttributes())
	return attrs
}

func instanceStatuses() []string {
	out := make([]string, len(instance.Statuses()))
	for i, s := range instance.Statuses() {
		out[i] = string(s)
	}
	return out
}

func serviceAttributes(positive []validator.Int64) map[string]schema.Attribute {
	port := []validator.Int64{int64validator.Between(1, 65535)}
	attrs := map[string]schema.Attribute{
		"role": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(string(instance.RoleMain)),
			MarkdownDescription: "How the task runs: `main` for the group's lifetime; `init` to completion before the main tasks " +
				"(prestart); `prestart_sidecar` started before them and running alongside (prestart, sidecar); `sidecar` started after " +
				"them and running alongside (poststart, sidecar); `poststart` to completion once they have started; `poststop` to " +
				"completion after they have stopped. One of " + shared.BacktickList(instanceRoles()) + ". Default `main`. Services that run to " +
				"completion (`init`, `poststart`, `poststop`) cannot have a `check`.",
			Validators: []validator.String{stringvalidator.OneOf(instanceRoles()...)},
		},
		"driver":  schema.StringAttribute{Required: true, MarkdownDescription: "Nomad task driver (`exec`, `raw_exec`, `docker`, ...)."},
		"image":   schema.StringAttribute{Optional: true, MarkdownDescription: "Sets `config.image` for image-based drivers."},
		"command": schema.StringAttribute{Optional: true, MarkdownDescription: "Sets `config.command`."},
		"args":    schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Sets `config.args`."},
		"config": schema.StringAttribute{
			CustomType: jsontypes.NormalizedType{}, Optional: true,
			MarkdownDescription: "Extra driver config as a JSON object (use `jsonencode`), merged with `image`, `command` and `args`, which it must not repeat.",
		},
		"env":        schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Environment variables."},
		"cpu":        schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultCPU), MarkdownDescription: "CPU in MHz. Default `100`.", Validators: positive},
		"memory":     schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultMemory), MarkdownDescription: "Memory in MiB. Default `300`.", Validators: positive},
		"memory_max": schema.Int64Attribute{Optional: true, MarkdownDescription: "Memory limit in MiB when oversubscription is enabled; at least `memory`.", Validators: positive},
		"kill_signal": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Signal Nomad sends to stop the task (Nomad sends `SIGKILL` if it has not exited after the kill timeout): " +
				shared.BacktickList(instance.KillSignals()) + ". Default: Nomad's, `SIGINT`.",
			Validators: []validator.String{stringvalidator.OneOf(instance.KillSignals()...)},
		},
		"ports": schema.MapNestedAttribute{
			Optional:            true,
			MarkdownDescription: "Ports by label; labels are unique across the instance. Tasks see them as `NOMAD_PORT_<label>`.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"to":     schema.Int64Attribute{Optional: true, MarkdownDescription: "Port inside the task's network namespace (bridge mode).", Validators: port},
				"static": schema.Int64Attribute{Optional: true, MarkdownDescription: "Fixed host port; default a dynamic one.", Validators: port},
			}},
		},
		"mounts": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "Volumes from the instance's `volumes` mounted into this task. The `raw_exec` driver cannot " +
				"mount volumes; use `exec` (or another isolating driver).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"volume":      schema.StringAttribute{Required: true, MarkdownDescription: "Key in the instance's `volumes`."},
				"destination": schema.StringAttribute{Required: true, MarkdownDescription: "Absolute path inside the task."},
				"read_only": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
					MarkdownDescription: "Mount read-only. Default `false`."},
			}},
		},
		"check": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "A health check on a Nomad-native service registration for this task; deployments then wait for it to pass. " +
				"Shorthand for one registration named `<instance>-<service>` on `port` with this one check; conflicts with `registrations`.",
			Attributes: map[string]schema.Attribute{
				"type": schema.StringAttribute{Required: true, MarkdownDescription: "Check type: " + shared.BacktickList(instance.CheckTypes()) + ".",
					Validators: []validator.String{stringvalidator.OneOf(instance.CheckTypes()...)}},
				"port":     schema.StringAttribute{Required: true, MarkdownDescription: "Label of a port declared by a service of this instance."},
				"path":     schema.StringAttribute{Optional: true, MarkdownDescription: "HTTP path, required for `http` checks."},
				"interval": durationAttr("Time between checks. Default `10s`.", defaultCheckInterval),
				"timeout":  durationAttr("Time a check may take. Default `2s`.", defaultCheckTimeout),
			},
		},
	}
	maps.Copy(attrs, servicePolicyAttributes())
	attrs["registrations"] = registrationsAttribute()
	maps.Copy(attrs, fileAttributes())
	maps.Copy(attrs, secretEnvAttributes())
	return attrs
}

// reservationUnknownAtPlan: an instance moves to another node reservation
// in place, except when the new ID is unknown at plan time. Then the old
// reservation may be the one being replaced, and it can only be released
// once the instance no longer holds it, so the instance is replaced too.
func reservationUnknownAtPlan(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull() && req.PlanValue.IsUnknown()
}
