package volume

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// hostRegistrationOperators are the constraint operators Nomad accepts
// for a host volume: a job's, without the two that spread allocations
// (host volumes of one name are on distinct hosts anyway).
var hostRegistrationOperators = slices.DeleteFunc(slices.Clone(constraintOperators), func(op string) bool {
	return op == "distinct_hosts" || op == "distinct_property"
})

// hostRegistrationSchema: what Nomad's registration update changes (the
// path, capacities, capabilities, parameters) changes in place; the
// node cannot change, Nomad keeps the first constraints, and the node's
// client keeps a volume's name until it is deregistered, so those
// replace the registration (deregister, register again under a new ID:
// the directory is never touched either way).
func hostRegistrationSchema(ctx context.Context) schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	size := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			CustomType: sizeType{}, Optional: true,
			PlanModifiers:       []planmodifier.String{keepEqualSize{}},
			MarkdownDescription: desc + " Changed in place. " + sizeDoc,
		}
	}
	return schema.Schema{
		MarkdownDescription: "Registers in Nomad a directory that already exists on a node as a dynamic host volume, without " +
			"creating it and without a plugin: the node's client only checks that the path exists. Destroy only deregisters it: " +
			"Nomad forgets it, and the directory and its data stay. Destroy and every update are refused while allocations " +
			"that may still run use it. To have Nomad create (and delete) the directory through a plugin, use `berth_volume`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The volume's ID, a UUID Nomad chooses when it registers the volume."},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name jobs use to claim the volume (a group's `volume { type = \"host\", source = name }`); " +
					"unique on the node. Changing it replaces the registration.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Namespace. Default: the provider's `namespace`. Changing it replaces the registration." + shared.NamespaceRuleDoc,
				Validators:          []validator.String{shared.NamespaceValidator()}},
			"node_id": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Full ID of the node the directory is on. Nomad cannot move a registration: changing it replaces the registration.",
				Validators:          []validator.String{shared.NodeIDValidator()}},
			"host_path": schema.StringAttribute{Required: true,
				MarkdownDescription: "Path of the directory on the node; it must exist (the node's client checks). Changed in place.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
			"capacity":     size("Capacity to record for the volume (Nomad does not measure it)."),
			"capacity_min": size("Smallest capacity to record as requested; needs `capacity_max`."),
			"capacity_max": size("Largest capacity to record as requested; at least `capacity_min` (Nomad refuses an update that lowers it below `capacity`)."),
			"capabilities": schema.SetNestedAttribute{Required: true,
				MarkdownDescription: "The ways allocations may use the volume. Changed in place.",
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1)},
				NestedObject:        capabilityObject(volumeAccessModes),
			},
			"parameters": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Parameters to record with the volume (no plugin reads them). Changed in place."},
			"constraints": schema.ListNestedAttribute{Optional: true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				MarkdownDescription: "Constraints to record with the volume, as in a job (Nomad does not check them for a registration " +
					"and keeps the first ones on every update): changing them replaces the registration.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"attribute": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute to test, e.g. `${attr.kernel.name}` (write `$${...}` in HCL)."},
					"operator": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(volume.DefaultConstraintOperator),
						MarkdownDescription: "Operator: " + shared.BacktickList(hostRegistrationOperators) + ". Default `=` " +
							"(Nomad refuses `distinct_hosts` and `distinct_property` for host volumes).",
						Validators: []validator.String{stringvalidator.OneOf(hostRegistrationOperators...)}},
					"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value to compare with."},
				}},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),

			"node_pool": schema.StringAttribute{Computed: true, PlanModifiers: keep, MarkdownDescription: "Node pool of the volume's node."},
			"state": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`ready` once the node reports the volume, `pending` before, `unavailable` while the node is down."},
			"allocations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "IDs of the allocations using it that may still run."},
		},
	}
}
