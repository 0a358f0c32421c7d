package lease

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// portLabelPattern is what Nomad accepts as a port label (it becomes part of
// environment variable names).
var portLabelPattern = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)

// leaseIDPattern is a lease's ID, <namespace>/<name>.
var leaseIDPattern = regexp.MustCompile(`^[^/]+/[^/]+$`)

func leaseSchema(ctx context.Context) schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	positive := []validator.Int64{int64validator.AtLeast(1)}
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc, PlanModifiers: keep}
	}
	return schema.Schema{
		MarkdownDescription: "`berth_reservation` is a lease: a signed, time-bounded workload lease (berth's code, logs and tests call it a lease). The lease is a Nomad batch job whose leader task " +
			"sleeps until `expires_at`; when it exits Nomad stops the workload, so the lease ends on the cluster's own clock " +
			"even if nobody runs Terraform again. With a provider `signing_key` the lease is signed (ed25519) and every read " +
			"verifies the job in Nomad against the signature: a change made behind Terraform's back shows as `verified = false` " +
			"and the next plan replaces the lease.",
		Attributes: map[string]schema.Attribute{
			"id": computed("`<namespace>/<name>`."),
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Job ID. Changing it replaces the lease." + shared.NameRuleDoc, Validators: []validator.String{shared.NameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Namespace. Default: the provider's. Changing it replaces the lease." + shared.NamespaceRuleDoc,
				Validators:          []validator.String{shared.NamespaceValidator()}},
			"duration": schema.StringAttribute{Required: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long the lease lasts from `created_at`, a Go duration such as `8h`. Changing it before expiry " +
					"extends or shortens the lease in place (re-signed, timer updated); a new end already in the past is an error."},
			"node_id": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Full ID of the node to run on. Unset: Nomad places the lease (or the node reservation's node).",
				Validators:          []validator.String{shared.NodeIDValidator()}},
			"node_reservation": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "ID of a `berth_node_reservation`: the lease runs on its node, and what its job asks Nomad for " +
					"(the workload's cpu, memory and disk plus the timer task's " + fmt.Sprintf("%d MHz and %d MiB", lease.TimerCPU, lease.TimerMemoryMB) +
					") is charged to the reservation, released on destroy; a plan that would not fit in what the reservation has " +
					"left fails. Conflicts with `node_id`.",
				Validators: []validator.String{shared.ReservationIDValidator()}},
			"workload": schema.SingleNestedAttribute{Required: true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "The leased workload: one task. Changing it replaces the lease.",
				Attributes: map[string]schema.Attribute{
					"driver":  schema.StringAttribute{Required: true, MarkdownDescription: "Task driver."},
					"image":   schema.StringAttribute{Optional: true, MarkdownDescription: "Sets `config.image` for image-based drivers."},
					"command": schema.StringAttribute{Optional: true, MarkdownDescription: "Sets `config.command`."},
					"args":    schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Sets `config.args`."},
					"env":     schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Environment variables."},
					"cpu": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(100), Validators: positive,
						MarkdownDescription: "CPU in MHz. Default `100`."},
					"memory": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(300), Validators: positive,
						MarkdownDescription: "Memory in MiB. Default `300`."},
					"disk": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(300), Validators: positive,
						MarkdownDescription: "Ephemeral disk in MiB. Default `300`."},
					"ports": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						Validators: []validator.List{listvalidator.UniqueValues(), listvalidator.ValueStringsAre(
							stringvalidator.RegexMatches(portLabelPattern, "must be letters, digits and underscores"))},
						MarkdownDescription: "Labels of ports Nomad gives the workload on its node (dynamic ports): the task " +
							"reads each as `NOMAD_PORT_<label>` and binds it on `NOMAD_IP_<label>`; `result.data` says where " +
							"each is once it runs."},
				},
			},
			"reference": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				Validators: []validator.String{stringvalidator.RegexMatches(leaseIDPattern,
					"must be a lease ID, <namespace>/<name>")},
				MarkdownDescription: "ID of another `berth_reservation` (`<namespace>/<name>`, in this lease's namespace) " +
					"this lease belongs to: it ends when that one ends (its expiry, destroy, or a stop or purge in Nomad), " +
					"enforced by Nomad with nobody running Terraform. The referenced lease must be running and verified " +
					"when this one is created, and this one belongs to the allocation that runs it then: a job that reuses " +
					"the referenced name later (a lease or not) does not keep it running. Changing it replaces the lease."},
			"renew": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "After expiry, the next plan replaces the lease with a fresh one (like `time_rotating`). `false`: it stays " +
					"expired (`result.state = \"expired\"`) and no change is planned until it is removed. Default `true`."},
			"wait_for_running": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Create waits until the workload runs, or fails with the reason (the lease stays in state, tainted). Default `true`."},
			"user": computed("Hex ed25519 public key of the key the lease is signed with, once berth vouches for it: the provider's " +
				"`signing_key`, or the key berth itself signed the lease with. Null when unsigned, and never a key only the job in " +
				"Nomad names (a signature berth did not make)."),
			"created_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, PlanModifiers: keep,
				MarkdownDescription: "When the lease was created, RFC 3339 UTC."},
			"expires_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, PlanModifiers: keep,
				MarkdownDescription: "`created_at` + `duration`, RFC 3339 UTC."},
			"expired": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the lease has ended, by the clock or because its job is dead. `false` while Nomad " +
					"still runs it after its end (`result.state = \"overrun\"`)."},
			"signature": computed("Hex ed25519 signature over the lease's canonical bytes, as the job in Nomad carries it; null when unsigned."),
			"verified": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the job in Nomad carries a valid signature by the provider's `signing_key` (without one: " +
					"by the key berth itself signed the lease with), was not changed since it was signed, and is not an earlier signed " +
					"version brought back (`nomad job revert`: checked against the job's versions in Nomad, so also after an import), " +
					"and whether the lease ends: an allocation Nomad still runs more than " + lease.OverrunAllowance.String() + " after " +
					"`expires_at` (its timer paused with a signal) reads `false`, `result.state = \"overrun\"`. A job with no signature, a signature by another key, a lease berth wrote " +
					"unsigned that gained a signature, an earlier signed version, or any change outside Terraform (meta, tasks, timer) " +
					"reads `false` with a warning, and the next plan replaces the lease. Null when there is nothing to verify against: " +
					"an unsigned lease and no `signing_key`, or a signature berth did not make and no `signing_key` to check it " +
					"(an imported lease; a warning says so)."},
			"job_modify_index": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Job modify index at the last read; an in-place update registers with check-and-set against it, so a job " +
					"changed in Nomad after the plan is never overwritten."},
			"timeouts": describedTimeouts(ctx, "How long each operation may take before berth gives up; state still records what exists.",
				timeouts.Opts{Create: true, Update: true, Delete: true,
					CreateDescription: "How long Create may take, including waiting for the workload to run, as a duration such as `15m`. Default `10m`.",
					UpdateDescription: "How long an in-place duration change may take, as a duration such as `15m`. Default `10m`.",
					DeleteDescription: "How long stopping and purging the lease may take, as a duration such as `10m`. Default `5m`."}),
			"result": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "Outcome: `state` is one of " + shared.BacktickList(resultStates) + ".",
				Attributes: map[string]schema.Attribute{
					"state":         schema.StringAttribute{Computed: true, MarkdownDescription: "One of " + shared.BacktickList(resultStates) + "."},
					"error":         schema.StringAttribute{Computed: true, MarkdownDescription: "Why the lease failed, from placement or task events."},
					"node_id":       schema.StringAttribute{Computed: true, MarkdownDescription: "Node of the newest allocation."},
					"allocation_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Newest allocation."},
					"address": schema.StringAttribute{Computed: true,
						MarkdownDescription: "The address of the workload's node its ports are on, once it runs; empty without `ports`."},
					"signature": schema.StringAttribute{Computed: true,
						MarkdownDescription: "The cluster's signature over the result, once the lease's allocation exists: a JWT " +
							"that Nomad's own keyring signed for the lease's timer task (a workload identity for the audience `" +
							lease.ResultAudience + "` only, which opens nothing in Nomad), naming the namespace, the lease's job and " +
							"its allocation. berth's key plays no part, so it shows who answered: verify it with the " +
							"`berth_lease_result` data source, or with any JOSE library against Nomad's `/.well-known/jwks.json`. " +
							"Empty for leases created before results were signed."},
					"data": schema.MapAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Where the workload can be reached once it runs: each port label to `<address>:<port>`. " +
							"Empty without `ports`, or while it does not run."},
				}},
		},
	}
}

// describedTimeouts is timeouts.Attributes with a description of its own.
func describedTimeouts(ctx context.Context, desc string, opts timeouts.Opts) schema.Attribute {
	a := timeouts.Attributes(ctx, opts)
	if n, ok := a.(schema.SingleNestedAttribute); ok {
		n.MarkdownDescription = desc
		return n
	}
	return a
}
