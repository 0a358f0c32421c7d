package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// csiRegistrationSchema: what Nomad lets a registration update change
// (capabilities, mount options, context, secrets) changes in place;
// everything else Nomad refuses to update, so a change replaces the
// registration (deregister, register again: the volume's data is never
// touched either way).
func csiRegistrationSchema(ctx context.Context) schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	size := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			CustomType: sizeType{}, Optional: true,
			PlanModifiers:       []planmodifier.String{keepEqualSize{}, stringplanmodifier.RequiresReplace()},
			MarkdownDescription: desc + " Changing it replaces the registration. " + sizeDoc,
		}
	}
	return schema.Schema{
		MarkdownDescription: "Registers in Nomad a CSI volume that already exists (a disk, a share, a bucket its plugin can reach), " +
			"without creating it: Nomad asks the plugin's controller, when it has one, to confirm the volume and its capabilities. " +
			"Destroy only deregisters it: the plugin is never asked to delete it, and its data stays. Destroy refuses while " +
			"allocations that may still run use it. To have berth create (and delete) the volume, use `berth_volume` with `type = \"csi\"`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The volume's ID in Nomad (`volume_id`).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"volume_id": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "ID to register the volume under in Nomad; jobs claim it by this ID (`source`). Changing it replaces the registration.",
				Validators:          []validator.String{volumeIDValidatorCSI()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Display name. Nomad cannot rename a registration: changing it replaces the registration.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Namespace. Default: the provider's `namespace`. Changing it replaces the registration." + shared.NamespaceRuleDoc,
				Validators:          []validator.String{shared.NamespaceValidator()}},
			"external_id": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "The plugin's ID for the volume (e.g. a cloud disk ID). Changing it replaces the registration.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
			"plugin_id": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "ID of the CSI plugin that serves the volume (a job's `csi_plugin { id }`). Changing it replaces the registration.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
			"capacity_min": size("Smallest capacity to record for the volume."),
			"capacity_max": size("Largest capacity to record for the volume."),
			"capabilities": schema.SetNestedAttribute{Required: true,
				MarkdownDescription: "The ways allocations may use the volume; the plugin must support each. Changed in place " +
					"(Nomad refuses a set that drops the mode a claim is using).",
				Validators:   []validator.Set{setvalidator.SizeAtLeast(1)},
				NestedObject: capabilityObject(csiAccessModes),
			},
			"mount_options": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "How the plugin mounts a `file-system` volume by default (a job's volume block may override " +
					"them). Changed in place while no allocation uses the volume (Nomad refuses otherwise).",
				Attributes: map[string]schema.Attribute{
					"fs_type": schema.StringAttribute{Optional: true, MarkdownDescription: "File system type, e.g. `ext4`."},
					"mount_flags": schema.ListAttribute{ElementType: types.StringType, Optional: true, Sensitive: true,
						MarkdownDescription: "Mount flags, e.g. `[\"noatime\"]`. Sensitive: they may hold credentials, and Nomad redacts " +
							"them, so a change made outside Terraform to the flags alone is not seen."},
				},
			},
			"parameters": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				MarkdownDescription: "Parameters the plugin needs for the volume. Nomad cannot update them: changing them replaces the registration."},
			"context": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				PlanModifiers: []planmodifier.Map{replaceWhenContextRemoved()},
				MarkdownDescription: "Context the plugin returned when the volume was created elsewhere (the plugin's `volume_context`). " +
					"Changed in place; removing all of it replaces the registration (Nomad keeps the old context on an update without one)."},
			"topologies": schema.ListNestedAttribute{Optional: true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				MarkdownDescription: "Required topologies: where the volume can be reached, each a map of segments, e.g. " +
					"`[{ segments = { rack = \"R1\" } }]`. Nomad places claiming allocations on nodes whose plugin reports a " +
					"matching topology. Changing them replaces the registration.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"segments": schema.MapAttribute{ElementType: types.StringType, Required: true, MarkdownDescription: "Topology segments."},
				}},
			},
			"secrets_wo": schema.MapAttribute{ElementType: types.StringType, Optional: true, WriteOnly: true, Sensitive: true,
				MarkdownDescription: "Secrets the plugin needs for the volume, **write-only** (Terraform 1.11 or later; never stored " +
					"in the plan or state, nor logged, and replaced by a placeholder in errors that repeat them). Nomad keeps them " +
					"(its API never shows them) and replaces them with every registration update, so every update sends the " +
					"configuration's (none when unset: after importing a volume that has secrets, set them here). Change " +
					"`secrets_wo_version` to send new values."},
			"secrets_wo_version": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Any number; changing it updates the registration with the current `secrets_wo`."},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"capacity_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Capacity Nomad records for the volume."},
			"state": schema.StringAttribute{Computed: true, MarkdownDescription: "`ready` while Nomad reports the volume schedulable " +
				"(its plugin has healthy controllers and nodes), else `unavailable`."},
			"allocations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "IDs of the allocations using it that may still run."},
		},
	}
}
