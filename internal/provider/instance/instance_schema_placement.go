package instance

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// placementAttributes are berth_instance's group name and placement:
// constraints, affinities and spreads, in one nested object because every
// top-level attribute adds to the cost of each plan (DESIGN.md, "Where a
// plan's time goes"). They are sets (order means nothing to Nomad), null
// when unset, and their elements have no defaults of their own (the
// framework mishandles defaults inside sets): an unset operator or weight
// is Nomad's default and reads back as null.
func placementAttributes() map[string]schema.Attribute {
	const attrDoc = "Node attribute, e.g. `${meta.rack}`, `${attr.kernel.name}` or `${node.datacenter}` " +
		"(write `$${...}` in HCL so Terraform does not interpolate it)."
	weight := fmt.Sprintf("Default %d (Nomad's).", instance.DefaultWeight)
	return map[string]schema.Attribute{
		"group": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("Name of the job's task group. Default `%s` (reads back as null). Changing it "+
				"registers the job with the group renamed, and Nomad replaces every allocation. A job imported with a "+
				"group of another name keeps it.", instance.GroupName),
			Validators: []validator.String{shared.StringRule{Summary: "Invalid group name", Desc: "must be " + names.LookupRule, Check: names.CheckLookup}},
		},
		"placement": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Where the allocations may run (`constraints`) and which nodes they prefer (`affinities`, " +
				"`spreads`), written on the task group and validated at plan time the way Nomad 1.10 validates a job. Null when unset.",
			Attributes: placementSets(attrDoc, weight),
		},
	}
}

func placementSets(attrDoc, weight string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"constraints": schema.SetNestedAttribute{
			Optional: true,
			MarkdownDescription: "Nodes the allocations may run on, as Nomad `constraint` blocks on the task group. " +
				"Order does not matter. Nomad's implicit constraints (service discovery, signals, CNI plugin versions) are not " +
				"listed here; a constraint of your own on one of their attributes with their operator is sent but not compared. " +
				"When an imported job has constraints at job level, they are listed here and move to the group on the next apply " +
				"that changes the job.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"attribute": schema.StringAttribute{Optional: true,
					MarkdownDescription: attrDoc + " Required except with `distinct_hosts`."},
				"operator": schema.StringAttribute{Optional: true,
					MarkdownDescription: "One of " + shared.BacktickList(instance.ConstraintOperators()) + ". Default `" + instance.DefaultOperator +
						"` (reads back as null). `version` takes a constraint like `>= 1.2, < 2` (`~>` allowed), `semver` a strict " +
						"semantic version constraint like `>= 1.2.0`, `regexp` a Go regular expression, `set_contains*` a " +
						"comma-separated list; `is_set` and `is_not_set` take no value.",
					Validators: []validator.String{stringvalidator.OneOf(instance.ConstraintOperators()...)}},
				"value": schema.StringAttribute{Optional: true,
					MarkdownDescription: "Value to compare with. With `distinct_hosts`: empty (true), `true` or `false`; with " +
						"`distinct_property`: empty (1) or how many allocations may share one value of the attribute (1 or more)."},
			}},
		},
		"affinities": schema.SetNestedAttribute{
			Optional: true,
			MarkdownDescription: "Placement preferences, as Nomad `affinity` blocks on the task group. Order does not matter; " +
				"job-level affinities of an imported job are listed here too.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"attribute": schema.StringAttribute{Required: true, MarkdownDescription: attrDoc},
				"operator": schema.StringAttribute{Optional: true,
					MarkdownDescription: "One of " + shared.BacktickList(instance.AffinityOperators()) + " (Nomad accepts no other operator in an " +
						"affinity). Default `" + instance.DefaultOperator + "` (reads back as null).",
					Validators: []validator.String{stringvalidator.OneOf(instance.AffinityOperators()...)}},
				"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value to compare with."},
				"weight": schema.Int64Attribute{Optional: true,
					MarkdownDescription: fmt.Sprintf("How much a matching node is preferred, from -%[1]d to %[1]d, not 0; negative "+
						"values avoid matching nodes. %[2]s", instance.MaxAffinityWeight, weight),
					Validators: []validator.Int64{int64validator.Between(-instance.MaxAffinityWeight, instance.MaxAffinityWeight), int64validator.NoneOf(0)}},
			}},
		},
		"spreads": schema.SetNestedAttribute{
			Optional: true,
			MarkdownDescription: "Spread the allocations over the values of a node attribute, as Nomad `spread` blocks on the " +
				"task group. Order does not matter; job-level spreads of an imported job are listed here too.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"attribute": schema.StringAttribute{Required: true, MarkdownDescription: attrDoc},
				"weight": schema.Int64Attribute{Optional: true,
					MarkdownDescription: fmt.Sprintf("Weight of this spread against other spreads and affinities, 1 to %d. %s", instance.MaxSpreadWeight, weight),
					Validators:          []validator.Int64{int64validator.Between(1, instance.MaxSpreadWeight)}},
				"targets": schema.SetNestedAttribute{Optional: true,
					MarkdownDescription: "Desired share of the allocations per attribute value; the percents add up to 100 at most. " +
						"None: Nomad spreads the allocations evenly over the values it finds.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"value": schema.StringAttribute{Required: true, MarkdownDescription: "Attribute value, e.g. `dc1`; each value once."},
						"percent": schema.Int64Attribute{Optional: true, MarkdownDescription: "Percent of the allocations, 0 to 100. Default 0.",
							Validators: []validator.Int64{int64validator.Between(0, 100)}},
					}},
				},
			}},
		},
	}
}
