package volume

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// addRegistrationError adds the diagnostics a registration workflow's
// error stands for (none for nil): those only registrations give here,
// the others as every workflow's.
func addRegistrationError(diags *diag.Diagnostics, err error) {
	var (
		undone *workflow.RegistrationUndoneError
		plugin *workflow.RegistrationPluginError
		exists *workflow.RegistrationExistsError
		inUse  *workflow.VolumeInUseError
	)
	switch {
	case err == nil:
	case errors.As(err, &undone):
		shared.AddNomadError(diags, "The host volume did not become ready", undone.Err)
		if undone.UndoErr != nil {
			shared.AddNomadError(diags, "Could not deregister the unfinished registration", undone.UndoErr)
			diags.AddError("Host volume left registered",
				fmt.Sprintf("Host volume %s stays registered in namespace %q, not ready. Deregister it with `nomad volume delete -type host "+
					"-namespace %s %s` (its directory is not touched), then apply again.", undone.ID, undone.Namespace, undone.Namespace, undone.ID))
			return
		}
		diags.AddError("Nothing was registered", "The registration was undone; the directory was not touched. Check that the node is up, then apply again.")
	case errors.As(err, &plugin):
		diags.AddError("Host volume has a plugin",
			fmt.Sprintf("Nomad records plugin %q for host volume %s, so deleting it would ask the plugin to delete the volume's "+
				"data; nothing was deregistered. Remove it from the configuration with a `removed` block (lifecycle { destroy = false }) "+
				"and delete it with `nomad volume delete` only if its data may go.", plugin.PluginID, plugin.ID))
	case errors.As(err, &exists):
		diags.AddAttributeError(path.Root("volume_id"), "Volume ID already registered",
			fmt.Sprintf("Nomad already has a CSI volume %q in namespace %q (external ID %q, plugin %q). Import it "+
				"(terraform import, or an import block with id = %q), or choose another volume_id.",
				exists.ID, exists.Namespace, exists.ExternalID, exists.PluginID, exists.Namespace+"/"+exists.ID))
	case errors.As(err, &inUse) && inUse.Kind == "CSI volume":
		diags.AddError("CSI volume in use",
			fmt.Sprintf("CSI volume %q is used by %s. Stop those jobs (or remove the volume from them) first; nothing was deregistered.",
				inUse.ID, inUse.Users))
	case errors.As(err, &inUse):
		diags.AddError("Host volume in use",
			fmt.Sprintf("Host volume %s (%q) is used by %s. Stop those jobs (or remove the volume from them) first; nothing was deregistered.",
				inUse.ID, inUse.Name, inUse.Users))
	default:
		shared.AddWorkflowError(diags, shared.ErrorContext{Object: "volume"}, err)
	}
}

// created is the ID a create registered under, or "" (with its
// diagnostics) when the workflow failed; a registration Nomad refused is
// explained at the attribute at, with detail.
func created(diags *diag.Diagnostics, id string, warnings []workflow.Warning, err error, at path.Path, detail string) string {
	shared.AddWarnings(diags, warnings)
	var refused *workflow.WriteError
	switch {
	case errors.As(err, &refused):
		shared.AddNomadError(diags, refused.Summary, refused.Err)
		diags.AddAttributeError(at, "Nothing was registered", detail)
	case err != nil:
		addRegistrationError(diags, err)
	default:
		return id
	}
	return ""
}
