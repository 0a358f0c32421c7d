package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// What the provider's plan and read shortcuts (internal/provider's
// create_plan_shortcut.go, unchanged_plan_shortcut.go and
// unchanged_read_shortcut.go) need from berth_instance: they answer its
// plans and refreshes without the framework, so they read its schema,
// identity and private state and run its ModifyPlan. Besides the two
// below they use Schema (instance_schema.go), Identity (instance.go),
// PrivateHasUnmanaged and UnmanagedKey (instance_resource_unmanaged.go)
// and SecretEnvReadKey (instance_resource_secrets.go); the rest of the
// family is unexported but for the constructors the provider lists.

// ModifyPlan runs berth_instance's ModifyPlan with data as the
// provider's data.
func ModifyPlan(ctx context.Context, data *shared.ProviderData, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r := newInstanceResource()
	r.Data = data
	r.ModifyPlan(ctx, req, resp)
}

// SpecOfState is the instance a berth_instance state value
// describes (the shortcut tests fake Nomad's copy of it).
func SpecOfState(ctx context.Context, state tftypes.Value) (instance.Spec, diag.Diagnostics, error) {
	var m instanceModel
	if d := (tfsdk.State{Raw: state, Schema: Schema(ctx)}).Get(ctx, &m); d.HasError() {
		return instance.Spec{}, d, nil
	}
	return m.toSpec(ctx)
}
