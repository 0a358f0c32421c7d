package volume

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// The scenarios both registrations pass alike (identity, `terraform
// query`, a move from the other provider), each run on a
// registrationFixture of either kind.

// registrationFixture is one kind's volume that exists outside Nomad,
// with what registers it and how Nomad shows it.
type registrationFixture struct {
	addr, typ string
	// name is what the list resource finds it by (name_prefix).
	name string
	// config registers it; adoptConfig too, as the generated
	// configuration of `terraform query` reads.
	config, adoptConfig string
	// file is in the volume: it must outlive the registration.
	file     string
	identity map[string]knownvalue.Check
	inNomad  func(*terraform.State) error
	// unregistered fails unless Nomad forgot the volume.
	unregistered func() error
	// peer registers it with the other provider, as peerType.r; movedSince
	// is the first Terraform whose `moved` takes it over.
	peer, peerType string
	movedSince     tfversion.TerraformVersionCheck
	// peerID is its ID in the other provider's state; modifyIndex is
	// Nomad's for it.
	peerID      func(*terraform.State) string
	modifyIndex func(id string) (uint64, error)
}

// csiRegistrationFixture is a directory a CSI plugin serves, run for the
// test ("berth-acc-"+tag names it).
func csiRegistrationFixture(t *testing.T, tag string) registrationFixture {
	nomad, plugin := csiPluginOutside(t)
	id, extID := "berth-acc-"+tag+"-"+acctest.RandomHex(3), "existing-"+acctest.RandomHex(3)
	config := csiRegistrationConfig(plugin, id, extID, "1", "")
	return registrationFixture{
		addr: csiRegAddr, typ: "berth_csi_volume_registration", name: id, config: config, adoptConfig: config,
		file: plugin.MakeVolumeDir(t, extID),
		identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"volume_id": knownvalue.StringExact(id),
		},
		inNomad: func(*terraform.State) error {
			v, _, err := nomad.CSIVolumes().Info(id, nil)
			if err != nil || v.ExternalID != extID {
				return fmt.Errorf("CSI volume %s in Nomad: %+v, %v", id, v, err)
			}
			return nil
		},
		unregistered: func() error { return checkUnregistered(nomad, id) },
		peer: fmt.Sprintf(`
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
`, id, id+"-name", extID, plugin.ID),
		peerType:   "nomad_csi_volume_registration",
		movedSince: tfversion.SkipBelow(tfversion.Version1_8_0),
		peerID:     func(*terraform.State) string { return id },
		modifyIndex: func(id string) (uint64, error) {
			v, _, err := nomad.CSIVolumes().Info(id, nil)
			if err != nil {
				return 0, err
			}
			return v.ModifyIndex, nil
		},
	}
}

// hostRegistrationFixture is a directory on a ready node.
func hostRegistrationFixture(t *testing.T, tag string) registrationFixture {
	nomad, node, name := onReadyNode(t, tag)
	file := existingDir(t)
	dir := filepath.Dir(file)
	return registrationFixture{
		addr: hostRegAddr, typ: "berth_host_volume_registration", name: name, file: file,
		config:      hostRegistrationConfig(name, node, dir, "1", ""),
		adoptConfig: hostRegistrationConfig(name, node, dir, "1", kernelConstraint),
		identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringRegexp(uuidRe),
		},
		inNomad: func(s *terraform.State) error {
			v, _, err := nomad.HostVolumes().Get(hostVolumeID(s), nil)
			if err != nil || v.Name != name {
				return fmt.Errorf("host volume %s in Nomad: %+v, %v", hostVolumeID(s), v, err)
			}
			return nil
		},
		unregistered: func() error { return checkHostUnregistered(nomad, name) },
		peer: fmt.Sprintf(`
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
`, name, node, dir),
		peerType:   "nomad_dynamic_host_volume_registration",
		movedSince: tfversion.SkipBelow(tfversion.Version1_12_0),
		peerID: func(s *terraform.State) string {
			return s.RootModule().Resources["nomad_dynamic_host_volume_registration.r"].Primary.ID
		},
		modifyIndex: func(id string) (uint64, error) {
			v, _, err := nomad.HostVolumes().Get(id, nil)
			if err != nil {
				return 0, err
			}
			return v.ModifyIndex, nil
		},
	}
}

// checkGone fails unless Nomad forgot the registration and its data
// stayed.
func (f registrationFixture) checkGone() error {
	if err := f.unregistered(); err != nil {
		return err
	}
	return checkDataKept(f.file)
}

// TestAccCSIVolumeRegistrationIdentity_importByIdentity: the identity is
// the namespace and volume ID; import by identity plans no change.
func TestAccCSIVolumeRegistrationIdentity_importByIdentity(t *testing.T) {
	testRegistrationIdentity(t, parallelFixture(t, csiRegistrationFixture, "csiregid"))
}

// TestAccHostVolumeRegistrationIdentity_importByIdentity: the identity is
// the namespace and the volume's ID; import by identity plans no change.
func TestAccHostVolumeRegistrationIdentity_importByIdentity(t *testing.T) {
	testRegistrationIdentity(t, parallelFixture(t, hostRegistrationFixture, "hostregid"))
}

// parallelFixture checks that the agent is there, runs t alongside the
// other parallel tests, and builds the fixture with mk.
func parallelFixture(t *testing.T, mk func(*testing.T, string) registrationFixture, tag string) registrationFixture {
	acctest.PreCheck(t)
	t.Parallel()
	return mk(t, tag)
}

func testRegistrationIdentity(t *testing.T, f registrationFixture) {
	acctest.CheckIdentity(t, acctest.IdentityCase{Addr: f.addr, Config: f.config, Identity: f.identity, InNomad: f.inNomad})
	if err := f.checkGone(); err != nil {
		t.Error(err)
	}
}

// TestAccCSIVolumeRegistrationQuery_adoptAgain: the list resource finds
// the registration, and the generated configuration imports it with no
// change.
func TestAccCSIVolumeRegistrationQuery_adoptAgain(t *testing.T) {
	testRegistrationAdoptAgain(t, parallelFixture(t, csiRegistrationFixture, "csiregq"))
}

// TestAccHostVolumeRegistrationQuery_adoptAgain: as for CSI volumes.
func TestAccHostVolumeRegistrationQuery_adoptAgain(t *testing.T) {
	testRegistrationAdoptAgain(t, parallelFixture(t, hostRegistrationFixture, "hostregq"))
}

func testRegistrationAdoptAgain(t *testing.T, f registrationFixture) {
	acctest.AdoptAgain(t, `provider "berth" {}`+f.adoptConfig, f.addr,
		fmt.Sprintf(`list %q "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, f.typ, f.name), f.name)
	if err := f.checkGone(); err != nil {
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
	acctest.PeerProvider(t)
	testRegistrationMoved(t, csiRegistrationFixture(t, "csiregmv"))
}

// TestAccHostVolumeRegistrationMoved_fromNomad: as for CSI volumes, from
// nomad_dynamic_host_volume_registration, keeping the volume's ID.
func TestAccHostVolumeRegistrationMoved_fromNomad(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	testRegistrationMoved(t, hostRegistrationFixture(t, "hostregmv"))
}

func testRegistrationMoved(t *testing.T, f registrationFixture) {
	const peerHeader = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	moved := peerHeader + fmt.Sprintf(`
moved {
  from = %s.r
  to   = %s
}
`, f.peerType, f.addr) + f.config
	var id string
	var modifyIndex uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{f.movedSince},
		Steps: []resource.TestStep{
			{
				Config: peerHeader + f.peer,
				Check: func(s *terraform.State) (err error) {
					id = f.peerID(s)
					modifyIndex, err = f.modifyIndex(id)
					return err
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(f.addr, plancheck.ResourceActionNoop),
				}},
				Check: func(s *terraform.State) error {
					index, err := f.modifyIndex(id)
					if err != nil {
						return err
					}
					if berthID := s.RootModule().Resources[f.addr].Primary.ID; index != modifyIndex || berthID != id {
						return fmt.Errorf("the move changed the volume in Nomad: modify index %d -> %d, ID %s -> %s",
							modifyIndex, index, id, berthID)
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
		CheckDestroy: func(*terraform.State) error { return f.checkGone() },
	})
}
