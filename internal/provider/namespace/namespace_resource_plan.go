package namespace

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ resource.ResourceWithValidateConfig = &namespaceResource{}
	_ resource.ResourceWithModifyPlan     = &namespaceResource{}
)

// editionCheckTimeout bounds the plan-time question whether Nomad is
// Enterprise: a slow Nomad must not hold up a plan for long.
const editionCheckTimeout = 15 * time.Second

// ValidateConfig refuses what Nomad would refuse, or silently make
// meaningless: a task driver or network mode both enabled and disabled,
// and a node pool, Vault or Consul configuration with both allowed and
// denied lists.
func (r *namespaceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m namespaceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var ignored diag.Diagnostics
	if c, ok := objectAs[capabilitiesModel](ctx, m.Capabilities, &ignored); ok {
		checkBoth(ctx, c.EnabledTaskDrivers, c.DisabledTaskDrivers, "task driver", "task_drivers", &resp.Diagnostics)
		checkBoth(ctx, c.EnabledNetworkModes, c.DisabledNetworkModes, "network mode", "network_modes", &resp.Diagnostics)
	}
	for name, o := range map[string]types.Object{"node_pool_config": m.NodePoolConfig, "vault_config": m.VaultConfig, "consul_config": m.ConsulConfig} {
		a, ok := objectAs[accessModel](ctx, o, &ignored)
		if !ok || a.Allowed.IsNull() || a.Denied.IsNull() {
			continue
		}
		resp.Diagnostics.AddAttributeError(path.Root(name).AtName("denied"), "Both allowed and denied",
			fmt.Sprintf("%s sets both allowed and denied, which Nomad refuses: allowed lists the only ones jobs may use, denied "+
				"the ones they may not use when all others are allowed. Set one of them.", name))
	}
}

// checkBoth reports the values in both the enabled and the disabled set,
// once, at the disabled set.
func checkBoth(ctx context.Context, enabled, disabled types.Set, what, suffix string, diags *diag.Diagnostics) {
	var ignored diag.Diagnostics
	on := map[string]bool{}
	for _, v := range setStrings(ctx, enabled, &ignored) {
		on[v] = true
	}
	var both []string
	for _, v := range setStrings(ctx, disabled, &ignored) {
		if on[v] {
			both = append(both, fmt.Sprintf("%q", v))
		}
	}
	if len(both) == 0 {
		return
	}
	sort.Strings(both)
	diags.AddAttributeError(path.Root("capabilities").AtName("disabled_"+suffix), fmt.Sprintf("A %s both enabled and disabled", what),
		fmt.Sprintf("%s in both enabled_%s and disabled_%s. Nomad would refuse every job that uses it, which is what "+
			"disabling alone says: remove it from one of the two.", strings.Join(both, ", "), suffix, suffix))
}

// ModifyPlan refuses, at plan, what cannot be applied: creating Nomad's
// default namespace (it always exists; import it), and Enterprise settings
// on Nomad CE (asked of the agent; when it cannot be asked, the apply
// reports Nomad's refusal instead). A destroy plans without either check.
func (r *namespaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan namespaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() && plan.Name.ValueString() == nomadclient.DefaultNamespace {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "The default namespace cannot be created",
			"Nomad's default namespace always exists, so berth cannot create it. To manage its description, metadata and "+
				"capabilities, import it: an `import { to = <address>\n id = \"default\" }` block, or `terraform import "+
				"<address> default`. Destroying it later leaves the namespace and its settings in Nomad.")
		return
	}
	paths := plan.enterprisePaths()
	if len(paths) == 0 || r.Data == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, editionCheckTimeout)
	defer cancel()
	enterprise, err := r.Data.Nomad.IsEnterprise(ctx)
	if err != nil {
		tflog.Warn(ctx, "Could not ask Nomad whether it is Enterprise; the apply will report a refusal", map[string]any{"error": err.Error()})
		return
	}
	if enterprise {
		return
	}
	for _, p := range paths {
		resp.Diagnostics.AddAttributeError(p, "Needs Nomad Enterprise", enterpriseDetail(p, plan.Name.ValueString(),
			"This cluster runs Nomad CE (it answers Enterprise endpoints with 501 Not Implemented)."))
	}
}

// enterprisePaths are the attributes m sets that only Nomad Enterprise
// holds.
func (m *namespaceModel) enterprisePaths() []path.Path {
	var out []path.Path
	if !m.Quota.IsNull() {
		out = append(out, path.Root("quota"))
	}
	for _, a := range []struct {
		name string
		v    types.Object
	}{{"node_pool_config", m.NodePoolConfig}, {"vault_config", m.VaultConfig}, {"consul_config", m.ConsulConfig}} {
		if !a.v.IsNull() {
			out = append(out, path.Root(a.name))
		}
	}
	return out
}

// enterpriseDetail explains a refused Enterprise setting.
func enterpriseDetail(p path.Path, name, why string) string {
	what := map[string]string{
		"quota":            "A namespace quota (quota specifications are Nomad Enterprise)",
		"node_pool_config": "A namespace's node pool configuration (node pool governance)",
		"vault_config":     "A namespace's Vault configuration (multi-cluster Vault)",
		"consul_config":    "A namespace's Consul configuration (multi-cluster Consul)",
	}[p.String()]
	return fmt.Sprintf("%s is a Nomad Enterprise feature. %s Nomad CE refuses the whole namespace then, so namespace %q "+
		"was not created or changed. Remove %s from the configuration, or use a Nomad Enterprise cluster.", what, why, name, p)
}
