package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var _ resource.ResourceWithValidateConfig = &hostRegistrationResource{}

var hostRegistrationIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the volume; default: the provider's namespace.", Optional: true},
	{Name: "id", Doc: "The volume's ID (a UUID)."},
}

// hostRegistrationResource is berth_host_volume_registration: a directory
// that exists on a node, registered as a dynamic host volume without a
// plugin (Nomad chooses its ID). Its writes are
// workflow.HostRegistrations: a create waits until the node reports the
// volume, and deregisters it again when it does not.
type hostRegistrationResource struct {
	registration[hostRegistrationModel, volume.HostRegistration, *hostRegistrationModel]
}

// hostRegistrationListResource lists the host volumes without a plugin.
type hostRegistrationListResource struct{ *hostRegistrationResource }

// NewHostRegistrationResource builds berth_host_volume_registration.
func NewHostRegistrationResource() resource.Resource { return newHostRegistrationResource() }

func newHostRegistrationResource() *hostRegistrationResource {
	return &hostRegistrationResource{newRegistration[hostRegistrationModel, volume.HostRegistration, *hostRegistrationModel](
		"host_volume_registration", hostRegistrationIdentity, hostRegistrationKind)}
}

// NewHostRegistrationListResource builds the
// berth_host_volume_registration list resource for `terraform query`
// (Terraform 1.14+).
func NewHostRegistrationListResource() list.ListResource {
	return &hostRegistrationListResource{newHostRegistrationResource()}
}

var hostRegistrationKind = registrationKind[volume.HostRegistration]{
	what:       "host volume",
	schema:     hostRegistrationSchema,
	computed:   []string{"id", "node_pool", "state", "allocations"},
	get:        (*nomadclient.Client).GetHostRegistration,
	address:    func(r *volume.HostRegistration) (string, string) { return r.Namespace, r.ID },
	importHint: func(ns string) string { return "`nomad volume status -type host -namespace " + ns + "`" },
	// A volume with a plugin was created, not registered: deleting it
	// would have the plugin delete its data.
	checkRead: func(r *volume.HostRegistration, diags *diag.Diagnostics) {
		if r.PluginID != "" {
			diags.AddWarning("Host volume now has a plugin",
				fmt.Sprintf("Nomad now records plugin %q for host volume %s (registered again outside Terraform). Deleting it would ask "+
					"that plugin to delete the volume's data, so berth will refuse to destroy it.", r.PluginID, r.ID))
		}
	},
	checkImport: func(id string, r *volume.HostRegistration, diags *diag.Diagnostics) {
		if r.PluginID != "" {
			diags.AddError("Host volume was created by a plugin",
				fmt.Sprintf("Host volume %s (%q) has plugin %q: it was created, not registered, and deleting it asks the plugin to "+
					"delete its data. berth_host_volume_registration manages only volumes without a plugin; import it as a "+
					"berth_volume instead.", id, r.Name, r.PluginID))
		}
	},
	create: func(ctx context.Context, d *shared.ProviderData, reg *volume.HostRegistration, diags *diag.Diagnostics) string {
		id, warnings, err := workflow.HostRegistrations{Nomad: d.Nomad}.Create(ctx, *reg)
		return created(diags, id, warnings, err, path.Root("host_path"),
			fmt.Sprintf("Nomad refused to register %q on node %s as host volume %q. Check that the directory exists on that "+
				"node (its client checks), that the node is up, and that no other volume on the node is called %q.",
				reg.HostPath, reg.NodeID, reg.Name, reg.Name))
	},
	update: func(ctx context.Context, d *shared.ProviderData, reg *volume.HostRegistration, diags *diag.Diagnostics) {
		warnings, err := workflow.HostRegistrations{Nomad: d.Nomad}.Update(ctx, *reg)
		shared.AddWarnings(diags, warnings)
		addRegistrationError(diags, err)
	},
	remove: func(ctx context.Context, d *shared.ProviderData, ns, id string, diags *diag.Diagnostics) {
		addRegistrationError(diags, workflow.HostRegistrations{Nomad: d.Nomad}.Delete(ctx, ns, id))
	},
	listDoc: "Host volumes Nomad knows that have no plugin (registered, not created), whoever registered them, for " +
		"`terraform query` (Terraform 1.14 and later). Volumes created by a plugin are left out: list them with `berth_volume`.",
	list:        (*nomadclient.Client).ListHostRegistrations,
	displayName: func(s volume.Summary) string { return s.Namespace + "/" + s.Name + " (" + s.ID + ")" },
}

// ValidateConfig refuses the capacity range Nomad refuses (sizes that do
// not parse are reported by their type, not again here).
func (r *hostRegistrationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var lo, hi sizeValue
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("capacity_min"), &lo)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("capacity_max"), &hi)...)
	if resp.Diagnostics.HasError() || !validSize(lo) || hi.IsUnknown() || (!hi.IsNull() && !validSize(hi)) {
		return
	}
	if err := volume.CheckCapacityRange(lo.Bytes(), hi.Bytes()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("capacity_max"), "Invalid capacity range",
			"Nomad refuses this range: "+err.Error()+". Set capacity_max to at least capacity_min, or remove capacity_min.")
	}
}
