package namespace

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// maxDescription is the longest namespace description Nomad accepts
// (nomad/structs maxNamespaceDescriptionLength).
const maxDescription = 256

// enterpriseDoc is said of the settings Nomad CE refuses.
const enterpriseDoc = " Nomad Enterprise only: on Nomad CE berth refuses it at plan, naming the attribute, and creates " +
	"or changes nothing."

// capabilitiesTypes, accessTypes: the nested objects' attribute types.
var (
	capabilitiesTypes = map[string]attr.Type{
		"enabled_task_drivers": types.SetType{ElemType: types.StringType}, "disabled_task_drivers": types.SetType{ElemType: types.StringType},
		"enabled_network_modes": types.SetType{ElemType: types.StringType}, "disabled_network_modes": types.SetType{ElemType: types.StringType},
	}
	accessTypes = map[string]attr.Type{
		"default": types.StringType, "allowed": types.SetType{ElemType: types.StringType}, "denied": types.SetType{ElemType: types.StringType},
	}
)

func namespaceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad namespace: its description, metadata, the task drivers and network modes its jobs " +
			"may use, and (Nomad Enterprise) its quota and the node pools, Vault and Consul clusters its jobs may use. " +
			"Destroy deletes the namespace only when nothing lives in it: while jobs (even stopped ones not yet purged), " +
			"Variables, host volumes or CSI volumes are in it, berth refuses, names them, and deletes nothing. Nomad's " +
			"`default` namespace always exists: it cannot be created, only imported (`terraform import <address> default`); " +
			"destroying it leaves the namespace and its settings in Nomad. Needs a management token: Nomad allows namespace " +
			"writes to nothing less.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespace's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Namespace name. Changing it replaces the namespace." + shared.NamespaceRuleDoc,
				Validators:          []validator.String{shared.NamespaceValidator()}},
			"description": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Description, at most 256 characters.",
				Validators:          []validator.String{stringvalidator.LengthAtMost(maxDescription)}},
			"meta": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Metadata of the namespace."},
			"capabilities": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Which task drivers and network modes jobs in the namespace may use; Nomad checks them " +
					"when a job is registered. Unset, or every list empty: no restriction. A value may not be both enabled " +
					"and disabled.",
				Attributes: map[string]schema.Attribute{
					"enabled_task_drivers":  capabilitySet("Task drivers jobs may use; empty or unset: every driver not disabled."),
					"disabled_task_drivers": capabilitySet("Task drivers jobs may not use."),
					"enabled_network_modes": capabilitySet("Network modes (`host`, `bridge`, `cni/<name>`, …) jobs may use; " +
						"empty or unset: every mode not disabled."),
					"disabled_network_modes": capabilitySet("Network modes jobs may not use."),
				}},
			"quota": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Name of the quota specification the namespace counts against." + enterpriseDoc},
			"node_pool_config": accessAttribute("node pool", "node pools"),
			"vault_config":     accessAttribute("Vault cluster", "Vault clusters"),
			"consul_config":    accessAttribute("Consul cluster", "Consul clusters"),
		},
	}
}

func capabilitySet(doc string) schema.SetAttribute {
	return schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: doc}
}

// accessAttribute is the node pool, Vault or Consul configuration: the
// default one jobs get, and which others they may use.
func accessAttribute(one, many string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "The " + one + " jobs in the namespace use when they name none, and which " + many +
			" they may use." + enterpriseDoc,
		Attributes: map[string]schema.Attribute{
			"default": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "The " + one + " of jobs that name none. Unset: Nomad's choice (`default`)."},
			"allowed": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The " + many + " jobs may use (`*` globs allowed). Unset: all; empty: only the " +
					"default. Cannot be set with `denied`."},
			"denied": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The " + many + " jobs may not use (`*` globs allowed). Cannot be set with `allowed`."},
		},
	}
}
