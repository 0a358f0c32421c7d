package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// Enumerations the schema validates and documents, from the volume package.
var (
	volumeAccessModes     = volume.AccessModes()
	volumeAttachmentModes = volume.AttachmentModes()
	volumeStates          = volume.States()
	constraintOperators   = volume.ConstraintOperators()
	mkdirParameters       = volume.MkdirParameters()
)

func volumeSchema(ctx context.Context) schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceIfSet := []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	size := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			CustomType: sizeType{}, Optional: true,
			PlanModifiers:       []planmodifier.String{keepEqualSize{}},
			MarkdownDescription: desc + " " + sizeDoc,
		}
	}
	return schema.Schema{
		MarkdownDescription: "A persistent volume placed on a Nomad node: a dynamic host volume created by a plugin " +
			"(`mkdir` is built in). Instances mount it through their `volumes` attribute. Create waits until it is ready; " +
			"destroy refuses while allocations use it (see `force_destroy`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Volume ID.", PlanModifiers: keep},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Volume name; instances mount it by this name. Changing it replaces the volume." + nameRuleDoc,
				Validators:          []validator.String{nameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Namespace. Default: the provider's `namespace`. Changing it replaces the volume." + namespaceRuleDoc,
				Validators:          []validator.String{namespaceValidator()}},
			"plugin_id": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultPlugin),
				PlanModifiers:       replace,
				MarkdownDescription: "Host volume plugin. Default `mkdir` (built in). Changing it replaces the volume."},
			"capacity_min": size("Smallest acceptable capacity."),
			"capacity_max": size("Largest acceptable capacity. Changed in place; lowering it below the current capacity is refused (a warning in the plan, an error at apply)."),
			"access_mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultAccessMode),
				PlanModifiers:       replace,
				MarkdownDescription: "How allocations may use it: " + backtickList(volumeAccessModes) + ". Default `single-node-writer`.",
				Validators:          []validator.String{stringvalidator.OneOf(volumeAccessModes...)}},
			"attachment_mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultAttachmentMode),
				PlanModifiers:       replace,
				MarkdownDescription: "How it is presented: " + backtickList(volumeAttachmentModes) + ". Default `file-system`.",
				Validators:          []validator.String{stringvalidator.OneOf(volumeAttachmentModes...)}},
			"node_id": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Full ID of the node to create it on. When unset Nomad places it (using `node_pool` and `constraints`) and this reports the node chosen.",
				Validators:          []validator.String{nodeIDValidator()}},
			"node_reservation": schema.StringAttribute{Optional: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "ID of a `berth_node_reservation` to place the volume into: it is created on the " +
					"reservation's node and its `capacity_max` (or `capacity_min`) is charged to the reservation's disk budget, " +
					"released after the volume is deleted; a plan that would not fit in what the reservation has left fails. " +
					"Conflicts with `node_id`. Changing it replaces the volume.",
				Validators: []validator.String{reservationIDValidator()}},
			"node_pool": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Node pool to place it in. Default: the namespace's default pool."},
			"constraints": schema.ListNestedAttribute{
				Optional: true, MarkdownDescription: "Placement constraints, as in a job. Changing them replaces the volume.",
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"attribute": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute to test, e.g. `${attr.kernel.name}` (write `$${...}` in HCL)."},
					"operator": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultConstraintOperator),
						MarkdownDescription: "Operator: " + backtickList(constraintOperators) + ". Default `=`.",
						Validators:          []validator.String{stringvalidator.OneOf(constraintOperators...)}},
					"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value to compare with."},
				}},
			},
			"parameters": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Plugin parameters, changed in place. The `mkdir` plugin accepts only " + backtickList(mkdirParameters) + "."},
			"force_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete even while allocations use the volume, where Nomad allows it (e.g. its node is gone). Default `false`."},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"node_name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the node it lives on."},
			"host_path":      schema.StringAttribute{Computed: true, MarkdownDescription: "Path on the node."},
			"capacity_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Capacity the plugin reports (the `mkdir` plugin reports 0)."},
			"state":          schema.StringAttribute{Computed: true, MarkdownDescription: "State: " + backtickList(volumeStates) + "."},
			"allocations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "IDs of the allocations using it that may still run (`pending`, `running`, or `unknown` on a disconnected client)."},
		},
	}
}
