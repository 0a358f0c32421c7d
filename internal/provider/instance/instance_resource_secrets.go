package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A service's secret_env_wo is write-only: the framework gives it to berth
// in the configuration only (plan and state hold null). berth writes it to
// the task's Nomad Variable whenever secret_env_wo_version is new or
// changed, before the job is registered (the task's template waits for the
// Variable), and deletes the Variable once no job version berth registers
// reads it any more. See instance.SecretEnvPath and DESIGN.md ("Secrets").

// secretEnvConfig reads each service's secret_env_wo from the
// configuration; services without one are absent.
func secretEnvConfig(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) map[string]map[string]string {
	var services types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("services"), &services)...)
	out := map[string]map[string]string{}
	if diags.HasError() || services.IsNull() || services.IsUnknown() {
		return out
	}
	for name, v := range services.Elements() {
		obj, ok := v.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() {
			continue
		}
		secrets, ok := obj.Attributes()["secret_env_wo"].(types.Map)
		if !ok || secrets.IsNull() || secrets.IsUnknown() {
			continue
		}
		values := map[string]string{}
		diags.Append(secrets.ElementsAs(ctx, &values, false)...)
		out[name] = values
	}
	return out
}

// validateSecretEnvConfig checks what only the configuration shows, since
// the plan never holds secret_env_wo: it goes with secret_env_wo_version,
// and it is not empty (Nomad refuses an empty Variable). Unknown values
// are checked when they are known.
func validateSecretEnvConfig(_ context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	services, _ := shared.RawElements(shared.RawAttr(cfg.Raw, "services"))
	for name, svc := range services {
		if !svc.IsKnown() || svc.IsNull() {
			continue
		}
		secrets, version := shared.RawAttr(svc, "secret_env_wo"), shared.RawAttr(svc, "secret_env_wo_version")
		elems, known := shared.RawElements(secrets)
		at := path.Root("services").AtMapKey(name)
		switch {
		case !secrets.IsNull() && version.IsNull():
			diags.AddAttributeError(at.AtName("secret_env_wo_version"), "Missing secret_env_wo_version",
				"secret_env_wo is write-only, so Terraform cannot tell when it changes: set secret_env_wo_version with it "+
					"(for example 1), and change the version whenever the secrets change.")
		case secrets.IsNull() && !version.IsNull():
			diags.AddAttributeError(at.AtName("secret_env_wo"), "Missing secret_env_wo",
				"secret_env_wo_version is set but secret_env_wo is not: set both, or remove both to delete the service's secrets.")
		case known && len(elems) == 0:
			diags.AddAttributeError(at.AtName("secret_env_wo"), "No secrets",
				"secret_env_wo is empty, and Nomad keeps no empty Variable: give at least one variable, or remove secret_env_wo "+
					"and secret_env_wo_version.")
		}
	}
}

// SecretEnvReadKey is the private state key Read sets while the job
// refers to secrets Variables. What Read answers then depends on the
// Variables too (a missing one reads as an unset version), and they can be
// deleted or restored while the job stays at its index, so the
// unchanged-read shortcut never answers for such an instance, whatever its
// state says (after a Variable was deleted, the version in state is null).
const SecretEnvReadKey = "secret_env_read"

// forgetMissingSecretEnv reads as unset the secret version of each service
// of live whose Variable is gone from Nomad (deleted by hand), so the plan
// shows an update that writes it again: a task restarted meanwhile would
// wait for it. One list request, and only for instances with secrets. When
// Nomad cannot list them, live is left as it is. It marks private
// (secretEnvReadKey) while the job refers to any Variable.
func (r *instanceResource) forgetMissingSecretEnv(ctx context.Context, live *instance.Spec, private shared.PrivateData) diag.Diagnostics {
	refs := instance.SecretEnvPaths(*live)
	var mark []byte
	if len(refs) > 0 {
		mark = []byte("true")
	}
	diags := private.SetKey(ctx, SecretEnvReadKey, mark)
	if len(refs) == 0 {
		return diags
	}
	present, err := r.Data.Nomad.SecretEnvPathsUnder(ctx, live.Namespace, instance.SecretEnvPath(live.Name, live.TaskGroup(), ""))
	if err != nil {
		tflog.Warn(ctx, "Could not check the instance's secrets Variables", map[string]any{"error": err.Error()})
		return diags
	}
	for name, ref := range refs {
		if !present[ref.Path] {
			svc := live.Services[name]
			svc.SecretEnvVersion = nil
			live.Services[name] = svc
		}
	}
	return diags
}
