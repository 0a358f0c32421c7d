package volume

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// Nomad creates a CSI volume once and cannot resize or re-parameterise it
// through the create call (host volumes can), so a change to capacity or
// parameters replaces a CSI volume.

func replaceIfCSI() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = plansCSI(ctx, req.Plan, &resp.Diagnostics)
	}, "Replaces a CSI volume.", "Replaces a CSI volume.")
}

func replaceMapIfCSI() planmodifier.Map {
	return mapplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = plansCSI(ctx, req.Plan, &resp.Diagnostics)
	}, "Replaces a CSI volume.", "Replaces a CSI volume.")
}

// plansCSI reports whether plan is of a CSI volume.
func plansCSI(ctx context.Context, plan tfsdk.Plan, diags *diag.Diagnostics) bool {
	var typ types.String
	diags.Append(plan.GetAttribute(ctx, path.Root("type"), &typ)...)
	return typ.ValueString() == volume.TypeCSI
}

// replaceTypeChange replaces the volume when its type changes, but not when
// state has no type yet: state written before the attribute existed reads
// as null until the next refresh, and every such volume is a host volume.
type replaceTypeChange struct{}

func (replaceTypeChange) Description(context.Context) string {
	return "Changing the type replaces the volume."
}
func (m replaceTypeChange) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (replaceTypeChange) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.StateValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	if !req.PlanValue.Equal(req.StateValue) {
		resp.RequiresReplace = true
	}
}

// capitalize upper-cases the first letter of an ASCII phrase.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// validateCSIConfig: a CSI volume names its plugin and capabilities, and
// none of the host volume placement settings, which Nomad's CSI API has no
// place for. One diagnostic per attribute, at the attribute.
func validateCSIConfig(m volumeModel, diags *diag.Diagnostics) {
	if m.PluginID.IsNull() {
		diags.AddAttributeError(path.Root("plugin_id"), "Missing plugin_id",
			"A CSI volume is created by a CSI plugin: set plugin_id to the ID of a plugin with a healthy controller "+
				"(its job's csi_plugin { id }; `nomad plugin status` lists them).")
	}
	if m.Capabilities.IsNull() || (!m.Capabilities.IsUnknown() && len(m.Capabilities.Elements()) == 0) {
		diags.AddAttributeError(path.Root("capabilities"), "Missing capabilities",
			"A CSI volume needs at least one capability, e.g. capabilities = [{ access_mode = \"single-node-writer\", "+
				"attachment_mode = \"file-system\" }]; the plugin must support each.")
	}
	hostOnly := map[string]attr.Value{
		"access_mode": m.AccessMode, "attachment_mode": m.AttachmentMode, "node_id": m.NodeID, "node_pool": m.NodePool,
		"node_reservation": m.NodeReservation, "constraints": m.Constraints,
	}
	for _, name := range sortedAttrNames(hostOnly) {
		if !hostOnly[name].IsNull() {
			diags.AddAttributeError(path.Root(name), "Not for CSI volumes",
				fmt.Sprintf("%s is a host volume setting; a CSI volume has no place for it. Remove it (for access and attachment "+
					"modes use capabilities; a CSI volume's placement is its plugin's).", name))
		}
	}
	if m.ForceDestroy.ValueBool() {
		diags.AddAttributeError(path.Root("force_destroy"), "Not for CSI volumes",
			"Nomad deletes a CSI volume only once its claims are released, so force_destroy cannot apply. Remove it; stop "+
				"the jobs using the volume before destroying it.")
	}
}

// validateHostConfig refuses the CSI settings on a host volume.
func validateHostConfig(m volumeModel, diags *diag.Diagnostics) {
	csiOnly := map[string]attr.Value{"capabilities": m.Capabilities, "mount_options": m.MountOptions, "secrets_wo": m.SecretsWO}
	for _, name := range sortedAttrNames(csiOnly) {
		if !csiOnly[name].IsNull() {
			diags.AddAttributeError(path.Root(name), "Only for CSI volumes",
				fmt.Sprintf("%s applies to CSI volumes: set type = \"csi\" (with plugin_id naming a CSI plugin), or remove it.", name))
		}
	}
}

func sortedAttrNames(m map[string]attr.Value) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// maskCSISecrets masks the values of a CSI volume's secrets_wo in every
// log line written through ctx (the protocol server masks only the
// provider's own secrets).
func maskCSISecrets(ctx context.Context, secrets []string) context.Context {
	if len(secrets) == 0 {
		return ctx
	}
	return tflog.MaskAllFieldValuesStrings(tflog.MaskMessageStrings(ctx, secrets...), secrets...)
}

// redactCSISecrets rewrites diagnostics that repeat a secret value (a
// plugin's error, which Nomad passes back, may) with a placeholder instead.
func redactCSISecrets(diags diag.Diagnostics, secrets []string) diag.Diagnostics {
	if len(secrets) == 0 {
		return diags
	}
	out := make(diag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		summary, detail := volume.RedactSecrets(d.Summary(), secrets), volume.RedactSecrets(d.Detail(), secrets)
		if summary == d.Summary() && detail == d.Detail() {
			out = append(out, d)
			continue
		}
		var redacted diag.Diagnostic = diag.NewWarningDiagnostic(summary, detail)
		if d.Severity() == diag.SeverityError {
			redacted = diag.NewErrorDiagnostic(summary, detail)
		}
		if at, ok := d.(diag.DiagnosticWithPath); ok {
			redacted = diag.WithPath(at.Path(), redacted)
		}
		out = append(out, redacted)
	}
	return out
}
