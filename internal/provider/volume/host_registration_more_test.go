package volume

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestAccHostVolumeRegistrationIdentity_importByIdentity: the identity is
// the namespace and the volume's ID; import by identity plans no change.
func TestAccHostVolumeRegistrationIdentity_importByIdentity(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad := acctest.Nomad(t)
	node := acctest.ReadyNodeID(t)
	name := "berth-acc-hostregid-" + acctest.RandomHex(3)
	file := existingDir(t)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   hostRegAddr,
		Config: hostRegistrationConfig(name, node, filepath.Dir(file), "1", ""),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringRegexp(uuidRE),
		},
		InNomad: func(s *terraform.State) error {
			v, _, err := nomad.HostVolumes().Get(hostVolumeID(s), nil)
			if err != nil || v.Name != name {
				return fmt.Errorf("host volume %s in Nomad: %+v, %v", hostVolumeID(s), v, err)
			}
			return nil
		},
	})
	if err := checkHostUnregistered(nomad, name); err != nil {
		t.Error(err)
	}
	if err := checkDataKept(file); err != nil {
		t.Error(err)
	}
}

// TestAccHostVolumeRegistrationQuery_adoptAgain: the list resource finds
// the registration, and the generated configuration imports it with no
// change.
func TestAccHostVolumeRegistrationQuery_adoptAgain(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad := acctest.Nomad(t)
	node := acctest.ReadyNodeID(t)
	name := "berth-acc-hostregq-" + acctest.RandomHex(3)
	file := existingDir(t)
	acctest.AdoptAgain(t, `provider "berth" {}`+hostRegistrationConfig(name, node, filepath.Dir(file), "1", kernelConstraint), hostRegAddr,
		fmt.Sprintf(`list "berth_host_volume_registration" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name), name)
	if err := checkHostUnregistered(nomad, name); err != nil {
		t.Error(err)
	}
	if err := checkDataKept(file); err != nil {
		t.Error(err)
	}
}

// TestAccHostVolumeRegistrationMoved_fromNomad: a volume registered by the
// other provider's nomad_dynamic_host_volume_registration moves to
// berth_host_volume_registration with a `moved` block: the plan changes
// nothing, Nomad's copy is untouched (same modify index), the next plan
// is empty, and berth's destroy deregisters it, keeping the data.
func TestAccHostVolumeRegistrationMoved_fromNomad(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	nomad := acctest.Nomad(t)
	node := acctest.ReadyNodeID(t)
	name := "berth-acc-hostregmv-" + acctest.RandomHex(3)
	file := existingDir(t)
	dir := filepath.Dir(file)
	const peerHeader = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	peer := peerHeader + fmt.Sprintf(`
resource "nomad_dynamic_host_volume_registration" "r" {
  name      = %q
  node_id   = %q
  host_path = %q
  capacity  = "1GiB"
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  parameters = { p = "1" }
}
`, name, node, dir)
	moved := peerHeader + `
moved {
  from = nomad_dynamic_host_volume_registration.r
  to   = berth_host_volume_registration.r
}
` + hostRegistrationConfig(name, node, dir, "1", "")
	var id string
	var modifyIndex uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(s *terraform.State) error {
					id = s.RootModule().Resources["nomad_dynamic_host_volume_registration.r"].Primary.ID
					v, _, err := nomad.HostVolumes().Get(id, nil)
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
					plancheck.ExpectResourceAction(hostRegAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(s *terraform.State) error {
					v, _, err := nomad.HostVolumes().Get(id, nil)
					if err != nil {
						return err
					}
					if v.ModifyIndex != modifyIndex || hostVolumeID(s) != id {
						return fmt.Errorf("the move changed the volume in Nomad: modify index %d -> %d, ID %s -> %s",
							modifyIndex, v.ModifyIndex, id, hostVolumeID(s))
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkHostUnregistered(nomad, name); err != nil {
				return err
			}
			return checkDataKept(file)
		},
	})
}
