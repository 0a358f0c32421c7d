package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// Enumerations the schema validates and documents, from the volume package.
var (
	volumeAccessModes     = volume.AccessModes()
	volumeAttachmentModes = volume.AttachmentModes()
	volumeStates          = volume.States()
	constraintOperators   = volume.ConstraintOperators()
	mkdirParameters       = volume.MkdirParameters()
	volumeTypes           = volume.Types()
	csiAccessModes        = volume.CSIAccessModes()
)

func volumeSchema(ctx context.Context) schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceIfSet := []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	size := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			CustomType: sizeType{}, Optional: true,
			PlanModifiers:       []planmodifier.String{keepEqualSize{}, replaceIfCSI()},
			MarkdownDescription: desc + " " + sizeDoc,
		}
	}
	return schema.Schema{
		MarkdownDescription: "A persistent volume: a dynamic host volume placed on a Nomad node and created by a host volume plugin " +
			"(`mkdir` is built in), or, with `type = \"csi\"`, a CSI volume created by a CSI plugin's controller. Instances mount host " +
			"volumes through their `volumes` attribute; jobs mount CSI volumes with a `volume { type = \"csi\" }` block. Create waits " +
			"until it is ready (schedulable, for CSI); destroy refuses while allocations use it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Volume ID.", PlanModifiers: keep},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Volume name; instances mount it by this name. Changing it replaces the volume." + shared.NameRuleDoc +
					" A CSI volume's name may end in a per-allocation index, e.g. `data[0]`, `data[1]`: the volumes an instance's " +
					"`per_alloc` request claims, one per allocation.",
				Validators: []validator.String{volumeNameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Namespace. Default: the provider's `namespace`. Changing it replaces the volume." + shared.NamespaceRuleDoc,
				Validators:          []validator.String{shared.NamespaceValidator()}},
			"type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.TypeHost),
				PlanModifiers: []planmodifier.String{replaceTypeChange{}},
				MarkdownDescription: "Volume type: `host` (a dynamic host volume) or `csi` (a CSI volume; needs `plugin_id` and " +
					"`capabilities`, and replaces the volume on any change). Default `host`. Changing it replaces the volume.",
				Validators: []validator.String{stringvalidator.OneOf(volumeTypes...)}},
			"plugin_id": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultPlugin),
				PlanModifiers: replace,
				MarkdownDescription: "Plugin: for `host`, the host volume plugin (default `mkdir`, built in); for `csi`, required, the ID of a " +
					"CSI plugin with a healthy controller (a job's `csi_plugin { id }`). Changing it replaces the volume."},
			"capacity_min": size("Smallest acceptable capacity."),
			"capacity_max": size("Largest acceptable capacity. Changed in place; lowering it below the current capacity is refused (a warning in the plan, an error at apply)."),
			"access_mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultAccessMode),
				PlanModifiers: replace,
				MarkdownDescription: "How allocations may use a host volume: " + shared.BacktickList(volumeAccessModes) + ". Default `single-node-writer`. " +
					"CSI volumes use `capabilities` instead.",
				Validators: []validator.String{stringvalidator.OneOf(volumeAccessModes...)}},
			"attachment_mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultAttachmentMode),
				PlanModifiers: replace,
				MarkdownDescription: "How a host volume is presented: " + shared.BacktickList(volumeAttachmentModes) + ". Default `file-system`. " +
					"CSI volumes use `capabilities` instead.",
				Validators: []validator.String{stringvalidator.OneOf(volumeAttachmentModes...)}},
			"node_id": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Full ID of the node to create it on. When unset Nomad places it (using `node_pool` and `constraints`) and this reports the node chosen.",
				Validators:          []validator.String{shared.NodeIDValidator()}},
			"node_reservation": schema.StringAttribute{Optional: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "ID of a `berth_node_reservation` to place the volume into: it is created on the " +
					"reservation's node and its `capacity_max` (or `capacity_min`) is charged to the reservation's disk budget, " +
					"released after the volume is deleted; a plan that would not fit in what the reservation has left fails. " +
					"Conflicts with `node_id`. Changing it replaces the volume.",
				Validators: []validator.String{shared.ReservationIDValidator()}},
			"node_pool": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceIfSet,
				MarkdownDescription: "Node pool to place it in. Default: the namespace's default pool."},
			"constraints": schema.ListNestedAttribute{
				Optional: true, MarkdownDescription: "Placement constraints, as in a job. Changing them replaces the volume.",
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"attribute": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute to test, e.g. `${attr.kernel.name}` (write `$${...}` in HCL)."},
					"operator": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultConstraintOperator),
						MarkdownDescription: "Operator: " + shared.BacktickList(constraintOperators) + ". Default `=`.",
						Validators:          []validator.String{stringvalidator.OneOf(constraintOperators...)}},
					"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value to compare with."},
				}},
			},
			"parameters": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				PlanModifiers: []planmodifier.Map{replaceMapIfCSI()},
				MarkdownDescription: "Plugin parameters, changed in place for host volumes (a change replaces a CSI volume). The `mkdir` plugin " +
					"accepts only " + shared.BacktickList(mkdirParameters) + "."},
			"capabilities": schema.ListNestedAttribute{
				Optional: true, PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				MarkdownDescription: "CSI only, required there: the ways allocations may use the volume; the plugin must support each. " +
					"Changing them replaces the volume.",
				NestedObject: capabilityObject(csiAccessModes),
			},
			"mount_options": schema.SingleNestedAttribute{
				Optional: true, PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "CSI only: how the plugin mounts a `file-system` volume by default (a job's volume block may override " +
					"them). Changing them replaces the volume.",
				Attributes: map[string]schema.Attribute{
					"fs_type": schema.StringAttribute{Optional: true, MarkdownDescription: "File system type, e.g. `ext4`."},
					"mount_flags": schema.ListAttribute{ElementType: types.StringType, Optional: true, Sensitive: true,
						MarkdownDescription: "Mount flags, e.g. `[\"noatime\"]`. Sensitive: they may hold credentials, and Nomad redacts them."},
				},
			},
			"secrets_wo": schema.MapAttribute{ElementType: types.StringType, Optional: true, WriteOnly: true, Sensitive: true,
				MarkdownDescription: "CSI only: secrets the plugin needs, **write-only** (Terraform 1.11 or later; never stored in the plan " +
					"or state, nor logged, and replaced by a placeholder in errors that repeat them). They go with the create request; Nomad keeps them (redacted from its API) and passes them to " +
					"the plugin's later calls, including the delete. A change alone does not update the volume."},
			"force_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete a host volume even while allocations use it, where Nomad allows it (e.g. its node is gone). " +
					"Default `false`. Not for CSI volumes: Nomad must release their claims first."},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"node_name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the node it lives on."},
			"host_path":      schema.StringAttribute{Computed: true, MarkdownDescription: "Path on the node (host volumes)."},
			"external_id":    schema.StringAttribute{Computed: true, MarkdownDescription: "The CSI plugin's ID for the volume (CSI volumes)."},
			"capacity_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Capacity the plugin reports (the `mkdir` plugin reports 0)."},
			"state": schema.StringAttribute{Computed: true, MarkdownDescription: "State: " + shared.BacktickList(volumeStates) + ". A CSI volume " +
				"is `ready` while Nomad reports it schedulable (its plugin has healthy controllers and nodes), else `unavailable`."},
			"allocations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "IDs of the allocations using it that may still run (`pending`, `running`, or `unknown` on a disconnected client)."},
		},
	}
}

// capabilityObject is a capability (a volume's or a registration's), whose
// access mode is one of accessModes.
func capabilityObject(accessModes []string) schema.NestedAttributeObject {
	return schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"access_mode": schema.StringAttribute{Required: true,
			MarkdownDescription: "Access mode: " + shared.BacktickList(accessModes) + ".",
			Validators:          []validator.String{stringvalidator.OneOf(accessModes...)}},
		"attachment_mode": schema.StringAttribute{Required: true,
			MarkdownDescription: "Attachment mode: " + shared.BacktickList(volumeAttachmentModes) + ".",
			Validators:          []validator.String{stringvalidator.OneOf(volumeAttachmentModes...)}},
	}}
}
