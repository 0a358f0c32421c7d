package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type namespaceModel struct {
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	Description    types.String `tfsdk:"description"`
	Meta           types.Map    `tfsdk:"meta"`
	Capabilities   types.Object `tfsdk:"capabilities"`
	Quota          types.String `tfsdk:"quota"`
	NodePoolConfig types.Object `tfsdk:"node_pool_config"`
	VaultConfig    types.Object `tfsdk:"vault_config"`
	ConsulConfig   types.Object `tfsdk:"consul_config"`
}

// NameAndID are the attributes shared.NamedObject reads and sets.
func (m *namespaceModel) NameAndID() (name, id *types.String) { return &m.Name, &m.ID }

type capabilitiesModel struct {
	EnabledTaskDrivers   types.Set `tfsdk:"enabled_task_drivers"`
	DisabledTaskDrivers  types.Set `tfsdk:"disabled_task_drivers"`
	EnabledNetworkModes  types.Set `tfsdk:"enabled_network_modes"`
	DisabledNetworkModes types.Set `tfsdk:"disabled_network_modes"`
}

type accessModel struct {
	Default types.String `tfsdk:"default"`
	Allowed types.Set    `tfsdk:"allowed"`
	Denied  types.Set    `tfsdk:"denied"`
}

// toNamespace is the namespace to write for m.
func (m *namespaceModel) toNamespace(ctx context.Context, diags *diag.Diagnostics) nomadclient.Namespace {
	ns := nomadclient.Namespace{Name: m.Name.ValueString(), Description: m.Description.ValueString(), Quota: m.Quota.ValueString()}
	diags.Append(m.Meta.ElementsAs(ctx, &ns.Meta, false)...)
	if c, ok := objectAs[capabilitiesModel](ctx, m.Capabilities, diags); ok {
		ns.Capabilities = &nomadclient.NamespaceCapabilities{
			EnabledTaskDrivers: setStrings(ctx, c.EnabledTaskDrivers, diags), DisabledTaskDrivers: setStrings(ctx, c.DisabledTaskDrivers, diags),
			EnabledNetworkModes: setStrings(ctx, c.EnabledNetworkModes, diags), DisabledNetworkModes: setStrings(ctx, c.DisabledNetworkModes, diags),
		}
	}
	ns.NodePools = toAccess(ctx, m.NodePoolConfig, diags)
	ns.Vault = toAccess(ctx, m.VaultConfig, diags)
	ns.Consul = toAccess(ctx, m.ConsulConfig, diags)
	return ns
}

func toAccess(ctx context.Context, o types.Object, diags *diag.Diagnostics) *nomadclient.NamespaceAccess {
	a, ok := objectAs[accessModel](ctx, o, diags)
	if !ok {
		return nil
	}
	out := &nomadclient.NamespaceAccess{Default: a.Default.ValueString(), Allowed: setStrings(ctx, a.Allowed, diags),
		Denied: setStrings(ctx, a.Denied, diags)}
	// An empty allowed list means "only the default": keep it non-nil.
	if !a.Allowed.IsNull() && out.Allowed == nil {
		out.Allowed = []string{}
	}
	if !a.Denied.IsNull() && out.Denied == nil {
		out.Denied = []string{}
	}
	return out
}

// fromNamespace writes what Nomad reports into m. Where Nomad's value
// means the same as m's (an empty list or map for an unset one, empty
// capabilities for none), m's spelling is kept, so a configuration that
// says `[]` or `{}` plans no change.
func (m *namespaceModel) fromNamespace(ctx context.Context, ns *nomadclient.Namespace, diags *diag.Diagnostics) {
	m.ID, m.Name = types.StringValue(ns.Name), types.StringValue(ns.Name)
	if ns.Description != "" || m.Description.IsNull() || m.Description.IsUnknown() || m.Description.ValueString() != "" {
		m.Description = shared.StringOrNull(ns.Description)
	}
	m.Meta = shared.KeepEmptyMap(m.Meta, shared.MapOrNull(ctx, ns.Meta, diags))
	m.Capabilities = fromCapabilities(ctx, ns.Capabilities, m.Capabilities, diags)
	m.Quota = shared.StringOrNull(ns.Quota)
	m.NodePoolConfig = fromAccess(ctx, ns.NodePools, diags)
	m.VaultConfig = fromAccess(ctx, ns.Vault, diags)
	m.ConsulConfig = fromAccess(ctx, ns.Consul, diags)
}

func fromCapabilities(ctx context.Context, c *nomadclient.NamespaceCapabilities, prior types.Object, diags *diag.Diagnostics) types.Object {
	var p capabilitiesModel
	priorSet := false
	if pc, ok := objectAs[capabilitiesModel](ctx, prior, diags); ok {
		p, priorSet = pc, true
	}
	if c == nil || len(c.EnabledTaskDrivers)+len(c.DisabledTaskDrivers)+len(c.EnabledNetworkModes)+len(c.DisabledNetworkModes) == 0 {
		if priorSet && allEmpty(p.EnabledTaskDrivers, p.DisabledTaskDrivers, p.EnabledNetworkModes, p.DisabledNetworkModes) {
			return prior
		}
		return types.ObjectNull(capabilitiesTypes)
	}
	out := capabilitiesModel{
		EnabledTaskDrivers: setOf(ctx, c.EnabledTaskDrivers, p.EnabledTaskDrivers, diags), DisabledTaskDrivers: setOf(ctx, c.DisabledTaskDrivers, p.DisabledTaskDrivers, diags),
		EnabledNetworkModes: setOf(ctx, c.EnabledNetworkModes, p.EnabledNetworkModes, diags), DisabledNetworkModes: setOf(ctx, c.DisabledNetworkModes, p.DisabledNetworkModes, diags),
	}
	v, d := types.ObjectValueFrom(ctx, capabilitiesTypes, out)
	diags.Append(d...)
	return v
}

// fromAccess is Nomad's node pool, Vault or Consul configuration as is: a
// nil list (all allowed) and an empty one (only the default) differ.
func fromAccess(ctx context.Context, a *nomadclient.NamespaceAccess, diags *diag.Diagnostics) types.Object {
	if a == nil {
		return types.ObjectNull(accessTypes)
	}
	exact := func(l []string) types.Set {
		if l == nil {
			return types.SetNull(types.StringType)
		}
		v, d := types.SetValueFrom(ctx, types.StringType, l)
		diags.Append(d...)
		return v
	}
	v, d := types.ObjectValueFrom(ctx, accessTypes, accessModel{Default: shared.StringOrNull(a.Default), Allowed: exact(a.Allowed), Denied: exact(a.Denied)})
	diags.Append(d...)
	return v
}

// setOf is l as a set; an empty l is null unless prior says `[]`.
func setOf(ctx context.Context, l []string, prior types.Set, diags *diag.Diagnostics) types.Set {
	if len(l) == 0 {
		if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
			return prior
		}
		return types.SetNull(types.StringType)
	}
	v, d := types.SetValueFrom(ctx, types.StringType, l)
	diags.Append(d...)
	return v
}

func allEmpty(sets ...types.Set) bool {
	for _, s := range sets {
		if !s.IsNull() && (s.IsUnknown() || len(s.Elements()) > 0) {
			return false
		}
	}
	return true
}

// objectAs decodes a known, non-null object; ok is false otherwise.
func objectAs[T any](ctx context.Context, o types.Object, diags *diag.Diagnostics) (T, bool) {
	var out T
	if o.IsNull() || o.IsUnknown() {
		return out, false
	}
	d := o.As(ctx, &out, basetypes.ObjectAsOptions{})
	diags.Append(d...)
	return out, !d.HasError()
}

// setStrings is a set's known elements (nil for a null or unknown set).
func setStrings(ctx context.Context, s types.Set, diags *diag.Diagnostics) []string {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	return out
}
