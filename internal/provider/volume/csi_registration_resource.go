package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var csiRegistrationIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the volume; default: the provider's namespace.", Optional: true},
	{Name: "volume_id", Doc: "The volume's ID in Nomad."},
}

// csiRegistrationResource is berth_csi_volume_registration: a CSI volume
// that exists already, registered under the ID the user chooses. Its
// writes are workflow.CSIRegistrations.
type csiRegistrationResource struct {
	registration[csiRegistrationModel, volume.CSIRegistration, *csiRegistrationModel]
}

// csiRegistrationListResource lists CSI volumes as registrations.
type csiRegistrationListResource struct{ *csiRegistrationResource }

// NewCSIRegistrationResource builds berth_csi_volume_registration.
func NewCSIRegistrationResource() resource.Resource { return newCSIRegistrationResource() }

func newCSIRegistrationResource() *csiRegistrationResource {
	return &csiRegistrationResource{newRegistration[csiRegistrationModel, volume.CSIRegistration, *csiRegistrationModel](
		"csi_volume_registration", csiRegistrationIdentity, csiRegistrationKind)}
}

// NewCSIRegistrationListResource builds the berth_csi_volume_registration
// list resource for `terraform query` (Terraform 1.14+).
func NewCSIRegistrationListResource() list.ListResource {
	return &csiRegistrationListResource{newCSIRegistrationResource()}
}

var csiRegistrationKind = registrationKind[volume.CSIRegistration]{
	what:       "CSI volume",
	schema:     csiRegistrationSchema,
	computed:   []string{"id", "capacity_bytes", "state", "allocations"},
	get:        (*nomadclient.Client).GetCSIRegistration,
	address:    func(r *volume.CSIRegistration) (string, string) { return r.Namespace, r.ID },
	idAlias:    "volume_id",
	importHint: func(string) string { return "`nomad volume status -type csi`" },
	secrets:    csiRegistrationSecrets,
	create: func(ctx context.Context, d *shared.ProviderData, reg *volume.CSIRegistration, diags *diag.Diagnostics) string {
		warnings, err := workflow.CSIRegistrations{Nomad: d.Nomad}.Create(ctx, reg)
		return created(diags, reg.ID, warnings, err, path.Root("external_id"),
			fmt.Sprintf("Nomad refused to register CSI volume %q (external ID %q) with plugin %q. Check that the plugin is "+
				"healthy (`nomad plugin status %s`), that the volume exists where the plugin looks for it, and that the plugin "+
				"supports the capabilities asked for.", reg.ID, reg.ExternalID, reg.PluginID, reg.PluginID))
	},
	update: func(ctx context.Context, d *shared.ProviderData, reg *volume.CSIRegistration, diags *diag.Diagnostics) {
		warnings, err := workflow.CSIRegistrations{Nomad: d.Nomad}.Update(ctx, reg)
		shared.AddWarnings(diags, warnings)
		addRegistrationError(diags, err)
	},
	remove: func(ctx context.Context, d *shared.ProviderData, ns, id string, diags *diag.Diagnostics) {
		addRegistrationError(diags, workflow.CSIRegistrations{Nomad: d.Nomad}.Delete(ctx, ns, id))
	},
	listDoc: "CSI volumes Nomad knows, whoever registered or created them, as registrations for `terraform query` " +
		"(Terraform 1.14 and later): adopted this way, destroy only deregisters them. Secrets are not read back (Nomad redacts " +
		"them): add `secrets_wo` to a generated configuration when the volume has some.",
	list:        (*nomadclient.Client).ListCSIVolumes,
	displayName: func(s volume.Summary) string { return s.Namespace + "/" + s.ID + " (" + s.Name + ")" },
	checkListed: func(id string, r *volume.CSIRegistration, diags *diag.Diagnostics) {
		if r.MountFlagsRedacted {
			diags.AddWarning("Mount flags not read back",
				"CSI volume "+id+" has mount flags, which Nomad redacts: add them to mount_options in the generated configuration.")
		}
	},
}

// csiRegistrationSecrets adds secrets_wo from the configuration to reg,
// masks their values in every log line written through the returned
// context, and returns the function that redacts them from diagnostics.
func csiRegistrationSecrets(ctx context.Context, cfg tfsdk.Config, reg *volume.CSIRegistration,
	diags *diag.Diagnostics) (context.Context, func(diag.Diagnostics) diag.Diagnostics) {
	var secrets types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("secrets_wo"), &secrets)...)
	diags.Append(secrets.ElementsAs(ctx, &reg.Secrets, false)...)
	values := reg.SecretValues()
	return maskCSISecrets(ctx, values), func(d diag.Diagnostics) diag.Diagnostics { return redactCSISecrets(d, values) }
}
