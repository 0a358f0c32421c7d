package namespace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ resource.ResourceWithConfigure   = &namespaceResource{}
	_ resource.ResourceWithImportState = &namespaceResource{}
)

// NewNamespaceResource builds the berth_namespace resource.
func NewNamespaceResource() resource.Resource { return newNamespaceResource() }

// newNamespaceResource is the resource as its own type, for its list resource.
func newNamespaceResource() *namespaceResource {
	r := &namespaceResource{ResourceBase: shared.NewResourceBase("namespace"), WithIdentity: shared.WithIdentity{Identity: namespaceIdentity}}
	r.NamedObject = shared.NamedObject[namespaceModel, *namespaceModel, nomadclient.Namespace]{
		Base: &r.ResourceBase,
		Noun: "namespace", Plural: "namespaces", ListHint: "List the namespaces with `nomad namespace list`.",
		Get: (*nomadclient.Client).GetNamespace, All: (*nomadclient.Client).ListNamespaces,
		NameOf:       func(o *nomadclient.Namespace) string { return o.Name },
		ListIdentity: namespaceIdentity, ModelSchema: namespaceSchema, Write: r.write, From: (*namespaceModel).fromNamespace,
	}
	return r
}

// Its Create, Read and Update, and its list resource's listing, are the
// ones every object known by name has (shared.NamedObject).
type namespaceResource struct {
	shared.ResourceBase
	shared.WithIdentity
	shared.NamedObject[namespaceModel, *namespaceModel, nomadclient.Namespace]
}

func (r *namespaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = namespaceSchema()
}

// Delete deletes the namespace when nothing lives in it. The default
// namespace, which Nomad never deletes, is only forgotten: its settings
// stay in Nomad as they are.
func (r *namespaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state namespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	if name == nomadclient.DefaultNamespace {
		tflog.Info(ctx, "The default namespace is left in Nomad, with its settings; only Terraform forgets it", map[string]any{"name": name})
		return
	}
	err := r.Data.Nomad.DeleteNamespace(ctx, name)
	var inUse *nomadclient.NamespaceInUseError
	switch {
	case err == nil:
		tflog.Info(ctx, "Deleted namespace", map[string]any{"name": name})
	case errors.As(err, &inUse):
		resp.Diagnostics.AddError("Namespace is not empty", namespaceInUseDetail(inUse))
	default:
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the namespace", err)
	}
}

// maxNamed is how many objects of a kind a diagnostic names before it
// counts the rest.
const maxNamed = 5

// namespaceInUseDetail says what lives in a namespace berth did not delete
// and what to do about it.
func namespaceInUseDetail(e *nomadclient.NamespaceInUseError) string {
	var b strings.Builder
	if e.Err != nil {
		fmt.Fprintf(&b, "Nomad refused to delete namespace %q: %v.", e.Name, strings.TrimSpace(e.Err.Error()))
	} else {
		fmt.Fprintf(&b, "berth did not delete namespace %q: things still live in it, and deleting the namespace would leave "+
			"them behind, unreachable. Nothing was deleted.", e.Name)
	}
	for _, kind := range []struct {
		what  string
		names []string
	}{{"Jobs (any status, until purged)", e.Contents.Jobs}, {"Variables", e.Contents.Variables},
		{"Host volumes", e.Contents.HostVolumes}, {"CSI volumes", e.Contents.CSIVolumes}} {
		if len(kind.names) > 0 {
			fmt.Fprintf(&b, "\n\n%s: %s.", kind.what, nameSome(kind.names))
		}
	}
	fmt.Fprintf(&b, "\n\nRemove them first (for a job: `nomad job stop -purge -namespace %[1]s <job>`; a Variable: "+
		"`nomad var purge -namespace %[1]s <path>`; a volume: `nomad volume delete -namespace %[1]s <volume>`, or "+
		"`nomad volume deregister` for a CSI volume whose data must stay), or destroy the berth resources that made them, "+
		"then destroy again.", e.Name)
	return b.String()
}

// nameSome names up to maxNamed of names and counts the rest.
func nameSome(names []string) string {
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
}

// write sends plan to Nomad. Settings Nomad CE refuses are caught at plan;
// if one gets here anyway (the plan could not ask Nomad), the refusal is
// reported at the attribute that set it: the refused write changed nothing.
func (r *namespaceResource) write(ctx context.Context, plan *namespaceModel, summary string, diags *diag.Diagnostics) bool {
	ns := plan.toNamespace(ctx, diags)
	if diags.HasError() {
		return false
	}
	err := r.Data.Nomad.WriteNamespace(ctx, ns)
	var enterprise *nomadclient.EnterpriseRequiredError
	switch {
	case err == nil:
		return true
	case errors.As(err, &enterprise):
		for _, p := range plan.enterprisePaths() {
			diags.AddAttributeError(p, "Needs Nomad Enterprise", enterpriseDetail(p, ns.Name, "Nomad said: "+
				strings.TrimSpace(enterprise.Err.Error())+"."))
		}
	default:
		shared.AddNomadError(diags, summary, err)
	}
	return false
}

// ImportState imports a namespace by name (or by its identity's name);
// `default` too, which destroy then leaves in Nomad.
func (r *namespaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := namespaceIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.Import(ctx, name, resp)
}
