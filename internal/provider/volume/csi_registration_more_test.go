package volume

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccCSIVolumeRegistrationIdentity_importByIdentity: the identity is
// the namespace and volume ID; import by identity plans no change.
func TestAccCSIVolumeRegistrationIdentity_importByIdentity(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	plugin.RunOutside(t, nomad)
	id, extID := "berth-acc-csiregid-"+acctest.RandomHex(3), "existing-"+acctest.RandomHex(3)
	file := plugin.MakeVolumeDir(t, extID)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   csiRegAddr,
		Config: csiRegistrationConfig(plugin, id, extID, "1", ""),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"volume_id": knownvalue.StringExact(id),
		},
		InNomad: func(*terraform.State) error {
			v, _, err := nomad.CSIVolumes().Info(id, nil)
			if err != nil || v.ExternalID != extID {
				return fmt.Errorf("CSI volume %s in Nomad: %+v, %v", id, v, err)
			}
			return nil
		},
	})
	if err := checkUnregistered(nomad, id); err != nil {
		t.Error(err)
	}
	if err := checkDataKept(file); err != nil {
		t.Error(err)
	}
}

// TestAccCSIVolumeRegistrationQuery_adoptAgain: the list resource finds
// the registration, and the generated configuration imports it with no
// change.
func TestAccCSIVolumeRegistrationQuery_adoptAgain(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	plugin.RunOutside(t, nomad)
	id, extID := "berth-acc-csiregq-"+acctest.RandomHex(3), "existing-"+acctest.RandomHex(3)
	file := plugin.MakeVolumeDir(t, extID)
	acctest.AdoptAgain(t, `provider "berth" {}`+csiRegistrationConfig(plugin, id, extID, "1", ""), csiRegAddr,
		fmt.Sprintf(`list "berth_csi_volume_registration" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, id), id)
	if err := checkUnregistered(nomad, id); err != nil {
		t.Error(err)
	}
	if err := checkDataKept(file); err != nil {
		t.Error(err)
	}
}

// TestAccCSIVolumeRegistrationMoved_fromNomad: a volume registered by the
// other provider's nomad_csi_volume_registration moves to
// berth_csi_volume_registration with a `moved` block: the plan changes
// nothing, Nomad's copy is untouched (same modify index), the next plan
// is empty, and berth's destroy deregisters it, keeping the data.
func TestAccCSIVolumeRegistrationMoved_fromNomad(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	acctest.PeerProvider(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	plugin.RunOutside(t, nomad)
	id, extID := "berth-acc-csiregmv-"+acctest.RandomHex(3), "existing-"+acctest.RandomHex(3)
	file := plugin.MakeVolumeDir(t, extID)
	const peerHeader = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	peer := peerHeader + fmt.Sprintf(`
resource "nomad_csi_volume_registration" "r" {
  volume_id    = %q
  name         = %q
  external_id  = %q
  plugin_id    = %q
  capacity_min = "10MiB"
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  mount_options {
    fs_type = "ext4"
  }
  parameters = { p = "1" }
  context    = { origin = "berth-test" }
}
`, id, id+"-name", extID, plugin.ID)
	moved := peerHeader + `
moved {
  from = nomad_csi_volume_registration.r
  to   = berth_csi_volume_registration.r
}
` + csiRegistrationConfig(plugin, id, extID, "1", "")
	var modifyIndex uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						return err
					}
					modifyIndex = v.ModifyIndex
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(csiRegAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(id, nil)
					if err != nil {
						return err
					}
					if v.ModifyIndex != modifyIndex {
						return fmt.Errorf("the move changed the volume in Nomad: modify index %d -> %d", modifyIndex, v.ModifyIndex)
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkUnregistered(nomad, id); err != nil {
				return err
			}
			return checkDataKept(file)
		},
	})
}
