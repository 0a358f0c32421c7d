package shared

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// OperationTimeout is a timeouts block's Create, Update or Delete: the
// time it sets, or def when it sets none.
type OperationTimeout func(ctx context.Context, def time.Duration) (time.Duration, diag.Diagnostics)

// WithTimeout puts an operation's timeout (def unless the resource's
// timeouts block says otherwise) on ctx; call cancel when done.
func WithTimeout(ctx context.Context, timeout OperationTimeout, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d, problems := timeout(ctx, def)
	diags.Append(problems...)
	return context.WithTimeout(ctx, d)
}

// ImportJob imports a resource that is one Nomad job, named `name` (in
// the provider's namespace) or `namespace/name` by the import ID or the
// identity: it sets id (`namespace/name`), namespace and name.
func ImportJob(ctx context.Context, data *ProviderData, id Identity, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := id.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name, found := strings.Cut(importID, "/")
	if !found {
		ns, name = data.Nomad.Namespace(), importID
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected `name` or `namespace/name`, got %q.", importID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ns+"/"+name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
