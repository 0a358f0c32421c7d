package acl

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// aclTokenModel is berth_acl_token's state: the token's attributes and
// where its secret goes. It has no field for the secret: nothing could
// put it into state.
type aclTokenModel struct {
	aclTokenAttributes
	SecretVariablePath      types.String `tfsdk:"secret_variable_path"`
	SecretVariableNamespace types.String `tfsdk:"secret_variable_namespace"`
}

// aclTokenAttributes are the token's attributes that the resource and the
// data source berth_acl_token both hold.
type aclTokenAttributes struct {
	ID             types.String         `tfsdk:"id"`
	AccessorID     types.String         `tfsdk:"accessor_id"`
	Name           types.String         `tfsdk:"name"`
	Type           types.String         `tfsdk:"type"`
	Policies       types.Set            `tfsdk:"policies"`
	Roles          types.Set            `tfsdk:"roles"`
	Global         types.Bool           `tfsdk:"global"`
	ExpirationTTL  timetypes.GoDuration `tfsdk:"expiration_ttl"`
	ExpirationTime types.String         `tfsdk:"expiration_time"`
	CreateTime     types.String         `tfsdk:"create_time"`
}

// toSpec is the token to write for m.
func (m *aclTokenModel) toSpec(ctx context.Context, diags *diag.Diagnostics) nomadclient.ACLTokenSpec {
	s := nomadclient.ACLTokenSpec{Name: m.Name.ValueString(), Type: m.Type.ValueString(), Global: m.Global.ValueBool()}
	if !m.Policies.IsNull() && !m.Policies.IsUnknown() {
		diags.Append(m.Policies.ElementsAs(ctx, &s.Policies, false)...)
	}
	if !m.Roles.IsNull() && !m.Roles.IsUnknown() {
		diags.Append(m.Roles.ElementsAs(ctx, &s.Roles, false)...)
	}
	if !m.ExpirationTTL.IsNull() && !m.ExpirationTTL.IsUnknown() {
		d, dd := m.ExpirationTTL.ValueGoDuration()
		diags.Append(dd...)
		s.ExpirationTTL = d
	}
	return s
}

// secretVariable is where m's secret goes.
func (m *aclTokenModel) secretVariable() workflow.SecretVariable {
	if m.SecretVariablePath.IsNull() || m.SecretVariablePath.IsUnknown() {
		return workflow.SecretVariable{}
	}
	ns := m.SecretVariableNamespace.ValueString()
	if ns == "" {
		ns = "default"
	}
	return workflow.SecretVariable{Namespace: ns, Path: m.SecretVariablePath.ValueString()}
}

// fromToken writes what Nomad reports into m. Nomad does not tell an
// empty name or policy set from an unset one, so m's spelling of
// "nothing" is kept.
func (m *aclTokenModel) fromToken(ctx context.Context, t *nomadclient.ACLToken, diags *diag.Diagnostics) {
	m.ID, m.AccessorID = types.StringValue(t.AccessorID), types.StringValue(t.AccessorID)
	m.Name = shared.StringOrNull(t.Name)
	m.Type = types.StringValue(t.Type)
	m.Policies = keepEmptySet(m.Policies, setOrNull(ctx, t.Policies, diags))
	m.Roles = keepEmptySet(m.Roles, setOrNull(ctx, t.Roles, diags))
	m.Global = types.BoolValue(t.Global)
	switch {
	case t.ExpirationTTL > 0:
		m.ExpirationTTL = shared.DurationValue(t.ExpirationTTL)
	case t.ExpirationTime == nil:
		m.ExpirationTTL = timetypes.NewGoDurationNull()
	}
	m.ExpirationTime = timeOrNull(t.ExpirationTime)
	if !t.CreateTime.IsZero() {
		m.CreateTime = types.StringValue(t.CreateTime.UTC().Format(time.RFC3339))
	}
	if m.SecretVariableNamespace.IsNull() || m.SecretVariableNamespace.IsUnknown() {
		m.SecretVariableNamespace = types.StringValue("default")
	}
	if m.SecretVariablePath.IsUnknown() {
		m.SecretVariablePath = types.StringNull()
	}
	if m.ExpirationTTL.IsUnknown() {
		m.ExpirationTTL = timetypes.NewGoDurationNull()
	}
}

func timeOrNull(t *time.Time) types.String {
	if t == nil || t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

func setOrNull(ctx context.Context, l []string, diags *diag.Diagnostics) types.Set {
	if len(l) == 0 {
		return types.SetNull(types.StringType)
	}
	v, d := types.SetValueFrom(ctx, types.StringType, l)
	diags.Append(d...)
	return v
}

// keepEmptySet keeps an empty set the configuration wrote for Nomad's
// nothing.
func keepEmptySet(had, got types.Set) types.Set {
	if got.IsNull() && !had.IsNull() && !had.IsUnknown() && len(had.Elements()) == 0 {
		return had
	}
	return got
}

// ttlChanged replaces the token when the configuration gives a TTL of
// another length than the token's (Nomad cannot change it); "60m" for
// "1h" is no change.
func ttlChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	want, err1 := time.ParseDuration(req.ConfigValue.ValueString())
	had, err2 := time.ParseDuration(req.StateValue.ValueString())
	resp.RequiresReplace = err1 != nil || err2 != nil || want != had
}
