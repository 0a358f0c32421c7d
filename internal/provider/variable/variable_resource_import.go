package variable

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

var variableIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Namespace of the Variable; default `default`.", Optional: true},
	{Name: "path", Doc: "Path of the Variable."},
}

// ImportState imports a Variable by "<namespace>/<path>", by a path alone
// (namespace `default`), or by identity. A path has slashes too, so an ID
// is tried as "<namespace>/<path>" first and as a path in `default` then;
// the first that exists is imported. Every item is imported as a plain
// item: Nomad does not say which were meant to be secret.
func (r *variableResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var candidates []variable.Ref
	if req.ID == "" && req.Identity != nil {
		var ns, p types.String
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root("namespace"), &ns)...)
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root("path"), &p)...)
		namespace := ns.ValueString()
		if namespace == "" {
			namespace = variable.DefaultNamespace
		}
		candidates = []variable.Ref{{Namespace: namespace, Path: p.ValueString()}}
	} else {
		candidates = variable.ImportCandidates(req.ID, variable.DefaultNamespace)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	ref, ok := r.findImport(ctx, candidates, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), refID(ref))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ref.Namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), ref.Path)...)
}

// findImport returns the first candidate Nomad has.
func (r *variableResource) findImport(ctx context.Context, candidates []variable.Ref, diags *diag.Diagnostics) (variable.Ref, bool) {
	var tried []string
	for _, ref := range candidates {
		if variable.CheckPath(ref.Path) != nil {
			continue
		}
		v, err := r.Data.Nomad.GetVariable(ctx, ref.Namespace, ref.Path)
		if err != nil {
			shared.AddNomadError(diags, "Cannot import the Variable", err)
			return ref, false
		}
		if v != nil {
			return ref, true
		}
		tried = append(tried, fmt.Sprintf("%s in namespace %q", ref.Path, ref.Namespace))
	}
	diags.AddError("Variable not found", fmt.Sprintf("Nomad has no Variable at %s. Give the import ID as "+
		"<namespace>/<path> or as a path in namespace \"default\"; list them with `nomad var list -namespace <ns>`.",
		strings.Join(tried, " or at ")))
	return variable.Ref{}, false
}
