package volume

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const hostRegAddr = "berth_host_volume_registration.r"

// hostRegistrationConfig registers dir on node as host volume name;
// extra adds attributes.
func hostRegistrationConfig(name, node, dir, param, extra string) string {
	return fmt.Sprintf(`
resource "berth_host_volume_registration" "r" {
  name         = %q
  node_id      = %q
  host_path    = %q
  capacity     = "1GiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  parameters   = { p = %q }
  %s
}
`, name, node, dir, param, extra)
}

const kernelConstraint = `constraints = [{ attribute = "$${attr.kernel.name}", value = "linux" }]`

// existingDir makes a directory holding a file, as data that was there
// before the registration and must outlive it; it returns the file.
func existingDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "existing")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(file, []byte("data that outlives the registration\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// hostVolumeID is the ID berth recorded for the registration.
func hostVolumeID(s *terraform.State) string {
	return s.RootModule().Resources[hostRegAddr].Primary.ID
}

// checkHostUnregistered fails unless Nomad no longer knows any host
// volume called name.
func checkHostUnregistered(nomad *api.Client, name string) error {
	stubs, _, err := nomad.HostVolumes().List(nil, nil)
	if err != nil {
		return err
	}
	for _, s := range stubs {
		if s.Name == name {
			return fmt.Errorf("host volume %s (%s) still registered in Nomad", s.ID, name)
		}
	}
	return nil
}

// onReadyNode is the Nomad client, a ready node to register a host
// volume on, and a new volume name ("berth-acc-"+tag+"-" and a suffix).
func onReadyNode(t *testing.T, tag string) (*api.Client, string, string) {
	t.Helper()
	return acctest.Nomad(t), acctest.ReadyNodeID(t), "berth-acc-" + tag + "-" + acctest.RandomHex(3)
}

// TestAccHostVolumeRegistration_lifecycle: an existing directory (with a
// file in it) is registered, not created; parameters and capacity
// changed through Nomad's API are named in the plan and put back in
// place under the same ID; a new host_path changes in place; import
// plans no change; destroy deregisters, and the file is still there.
func TestAccHostVolumeRegistration_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, node, name := onReadyNode(t, "hostreg")
	file, file2 := existingDir(t), existingDir(t)
	dir, dir2 := filepath.Dir(file), filepath.Dir(file2)
	var id string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: hostRegistrationConfig(name, node, dir, "1", kernelConstraint),
				ConfigStateChecks: []statecheck.StateCheck{
					stateIs(hostRegAddr, "namespace", knownvalue.StringExact("default")),
					stateIs(hostRegAddr, "state", knownvalue.StringExact("ready")),
					stateIs(hostRegAddr, "node_pool", knownvalue.NotNull()),
				},
				Check: func(s *terraform.State) error {
					id = hostVolumeID(s)
					v, _, err := nomad.HostVolumes().Get(id, nil)
					if err != nil {
						return fmt.Errorf("reading host volume %s: %w", id, err)
					}
					if v.Name != name || v.NodeID != node || v.HostPath != dir || v.PluginID != "" || v.CapacityBytes != 1<<30 ||
						v.Parameters["p"] != "1" || len(v.RequestedCapabilities) != 1 || len(v.Constraints) != 1 {
						return fmt.Errorf("Nomad's volume: %+v", v)
					}
					return checkDataKept(file)
				},
			},
			{
				// Drift through the API: other parameters, another capacity.
				PreConfig: func() {
					v, _, err := nomad.HostVolumes().Get(id, nil)
					if err != nil {
						t.Fatal(err)
					}
					v.Parameters = map[string]string{"p": "changed-outside"}
					v.CapacityBytes = 2 << 30
					if _, _, err := nomad.HostVolumes().Register(&api.HostVolumeRegisterRequest{Volume: v}, nil); err != nil {
						t.Fatalf("changing the registration through the API: %v", err)
					}
				},
				Config: hostRegistrationConfig(name, node, dir, "1", kernelConstraint),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hostRegAddr, plancheck.ResourceActionUpdate),
					plannedIs(hostRegAddr, "parameters", knownvalue.MapExact(map[string]knownvalue.Check{
						"p": knownvalue.StringExact("1")})),
					plannedIs(hostRegAddr, "capacity", knownvalue.StringExact("1GiB")),
				}},
				Check: func(s *terraform.State) error {
					v, _, err := nomad.HostVolumes().Get(id, nil)
					if err != nil {
						return err
					}
					if hostVolumeID(s) != id || v.Parameters["p"] != "1" || v.CapacityBytes != 1<<30 {
						return fmt.Errorf("not put back in place: ID %s (was %s), parameters %v, capacity %d",
							hostVolumeID(s), id, v.Parameters, v.CapacityBytes)
					}
					return nil
				},
			},
			{
				// Another directory: changed in place.
				Config: hostRegistrationConfig(name, node, dir2, "1", kernelConstraint),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hostRegAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error {
					v, _, err := nomad.HostVolumes().Get(id, nil)
					if err != nil {
						return err
					}
					if hostVolumeID(s) != id || v.HostPath != dir2 {
						return fmt.Errorf("host path in Nomad %q, ID %s (was %s)", v.HostPath, hostVolumeID(s), id)
					}
					return checkDataKept(file)
				},
			},
			{
				Config:            hostRegistrationConfig(name, node, dir2, "1", kernelConstraint),
				ResourceName:      hostRegAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(s *terraform.State) (string, error) { return "default/" + hostVolumeID(s), nil },
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hostRegAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkHostUnregistered(nomad, name); err != nil {
				return err
			}
			if err := checkDataKept(file); err != nil {
				return err
			}
			return checkDataKept(file2)
		},
	})
}

// TestAccHostVolumeRegistration_refusesPluginVolume: a host volume that a
// plugin created (mkdir) is refused at import, naming the plugin: its
// destroy would have the plugin delete the data.
func TestAccHostVolumeRegistration_refusesPluginVolume(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, node, name := onReadyNode(t, "hostregplug")
	created, _, err := nomad.HostVolumes().Create(&api.HostVolumeCreateRequest{Volume: &api.HostVolume{
		Name: name, NodeID: node, PluginID: "mkdir",
		RequestedCapabilities: []*api.HostVolumeCapability{{AccessMode: "single-node-writer", AttachmentMode: "file-system"}},
	}}, nil)
	if err != nil {
		t.Fatalf("creating a host volume with the mkdir plugin: %v", err)
	}
	id := created.Volume.ID
	t.Cleanup(func() {
		if _, _, err := nomad.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: id}, nil); err != nil {
			t.Errorf("deleting host volume %s: %v", id, err)
		}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
import {
  to = berth_host_volume_registration.r
  id = %q
}
`, id) + hostRegistrationConfig(name, node, "/nonexistent", "1", ""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Host volume was created by a plugin.*"mkdir"`),
		}},
	})
	if _, _, err := nomad.HostVolumes().Get(id, nil); err != nil {
		t.Errorf("the refused import touched volume %s: %v", id, err)
	}
}

// TestHostVolumeRegistration_badInput: what Nomad would refuse is refused
// at plan, with one diagnostic at the attribute.
func TestHostVolumeRegistration_badInput(t *testing.T) {
	t.Parallel()
	base := `
resource "berth_host_volume_registration" "r" {
  name         = "v"
  node_id      = "0b6c6a4e-0000-4000-8000-000000000001"
  host_path    = "/srv/v"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  %s
}
`
	for _, c := range []struct{ extra, want string }{
		{`capacity_min = "2GiB"`, `Invalid capacity range(?s).*needs a`},
		{`capacity_min = "2GiB"` + "\n" + `capacity_max = "1GiB"`, `Invalid capacity range(?s).*must be at least`},
		{`constraints = [{ attribute = "x", operator = "distinct_hosts" }]`, `value must be one of`},
		{`plugin_id = "mkdir"`, `An argument named "plugin_id" is not expected here`},
	} {
		acctest.ExpectPlanRejects(t, fmt.Sprintf(base, c.extra), c.want)
	}
	acctest.ExpectPlanRejects(t, `
resource "berth_host_volume_registration" "r" {
  name         = "v"
  node_id      = "not-a-node"
  host_path    = "/srv/v"
  capabilities = [{ access_mode = "multi-node-reader-only", attachment_mode = "file-system" }]
}
`, `Invalid node ID`)
}
