package volume

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const csiRegAddr = "berth_csi_volume_registration.r"

// csiRegistrationConfig registers the plugin's directory extID as volume
// id; param goes into the parameters (which Nomad cannot update).
func csiRegistrationConfig(p acctest.CSIPlugin, id, extID, param, secrets string) string {
	return fmt.Sprintf(`
resource "berth_csi_volume_registration" "r" {
  volume_id    = %q
  name         = %q
  external_id  = %q
  plugin_id    = %q
  capacity_min = "10MiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  mount_options = { fs_type = "ext4" }
  parameters   = { p = %q }
  context      = { origin = "berth-test" }
  %s
}
`, id, id+"-name", extID, p.ID, param, secrets)
}

// checkDataKept fails unless file (in the plugin's directory for the
// volume) is still there as MakeVolumeDir wrote it.
func checkDataKept(file string) error {
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), "outlives the registration") {
		return fmt.Errorf("the volume's data is gone: %q, %v", b, err)
	}
	return nil
}

// checkUnregistered fails unless Nomad no longer knows CSI volume id.
func checkUnregistered(nomad *api.Client, id string) error {
	if _, _, err := nomad.CSIVolumes().Info(id, nil); err == nil || !acctest.IsNotFound(err) {
		return fmt.Errorf("CSI volume %s still registered in Nomad (err %v)", id, err)
	}
	return nil
}

// TestAccCSIVolumeRegistration_lifecycle: an existing volume (a directory
// the plugin serves, with a file in it) is registered, not created;
// secrets go to Nomad and never into state; capabilities and context
// changed through Nomad's API are named in the plan and put back in
// place; a parameters change (Nomad cannot update them) replaces the
// registration; import plans no change; destroy deregisters and the
// file is still there.
func TestAccCSIVolumeRegistration_lifecycle(t *testing.T) {
	nomad, plugin := parallelCSIPlugin(t)
	id, extID := "berth-acc-csireg-"+acctest.RandomHex(3), "existing-"+acctest.RandomHex(3)
	file := plugin.MakeVolumeDir(t, extID)
	const secret = "berth-reg-secret-value"
	secrets := fmt.Sprintf("secrets_wo = { token = %q }", secret)
	config := csiRegistrationConfig(plugin, id, extID, "1", secrets)
	var createIndex uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					stateIs(csiRegAddr, "id", knownvalue.StringExact(id)),
					stateIs(csiRegAddr, "namespace", knownvalue.StringExact("default")),
					stateIs(csiRegAddr, "state", knownvalue.StringExact("ready")),
					stateIs(csiRegAddr, "secrets_wo", knownvalue.Null()),
				},
				Check: func(s *terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						return fmt.Errorf("reading CSI volume %s: %w", id, err)
					}
					createIndex = v.CreateIndex
					if v.ExternalID != extID || v.PluginID != plugin.ID || v.Context["origin"] != "berth-test" ||
						v.Parameters["p"] != "1" || len(v.RequestedCapabilities) != 1 || v.MountOptions == nil || v.MountOptions.FSType != "ext4" {
						return fmt.Errorf("Nomad's volume: external ID %q, plugin %q, context %v, parameters %v, %d capabilities, mount %+v",
							v.ExternalID, v.PluginID, v.Context, v.Parameters, len(v.RequestedCapabilities), v.MountOptions)
					}
					for k, attr := range s.RootModule().Resources[csiRegAddr].Primary.Attributes {
						if strings.Contains(attr, secret) {
							return fmt.Errorf("the secret is in state at %s", k)
						}
					}
					return checkDataKept(file)
				},
			},
			{
				// Drift through the API: another capability, another context.
				PreConfig: func() {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						t.Fatal(err)
					}
					v.RequestedCapabilities = append(v.RequestedCapabilities, &api.CSIVolumeCapability{
						AccessMode: api.CSIVolumeAccessModeSingleNodeReader, AttachmentMode: api.CSIVolumeAttachmentModeFilesystem})
					v.Context = map[string]string{"origin": "changed-outside"}
					v.Secrets = api.CSISecrets{"token": secret}
					v.MountOptions = &api.CSIMountOptions{FSType: "ext4"}
					if _, err := nomad.CSIVolumes().Register(v, nil); err != nil {
						t.Fatalf("changing the registration through the API: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(csiRegAddr, plancheck.ResourceActionUpdate),
					plannedIs(csiRegAddr, "context", knownvalue.MapExact(map[string]knownvalue.Check{
						"origin": knownvalue.StringExact("berth-test")})),
					plannedIs(csiRegAddr, "capabilities", knownvalue.SetSizeExact(1)),
				}},
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						return err
					}
					if len(v.RequestedCapabilities) != 1 || v.Context["origin"] != "berth-test" || v.CreateIndex != createIndex {
						return fmt.Errorf("not put back in place: %d capabilities, context %v, create index %d (was %d)",
							len(v.RequestedCapabilities), v.Context, v.CreateIndex, createIndex)
					}
					return nil
				},
			},
			{
				// Nomad cannot update parameters: the plan replaces it.
				Config: csiRegistrationConfig(plugin, id, extID, "2", secrets),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(csiRegAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						return err
					}
					if v.Parameters["p"] != "2" {
						return fmt.Errorf("parameters in Nomad: %v", v.Parameters)
					}
					return checkDataKept(file)
				},
			},
			{
				Config:          csiRegistrationConfig(plugin, id, extID, "2", secrets),
				ResourceName:    csiRegAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "default/" + id,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(csiRegAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkUnregistered(nomad, id); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Dir(file)); err != nil {
				return fmt.Errorf("the volume's directory is gone after destroy: %v", err)
			}
			return checkDataKept(file)
		},
	})
}
