package leastprivilege_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// berth_host_volume_registration needs host-volume-write in its
// namespace: host-volume-register registers and reads, but Nomad 1.10
// grants the deregistration (host-volume-delete) only as part of write.
// No node capability: the volume reports its node pool itself.
func TestAccLeastPrivilege_hostVolumeRegistration(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	node := acctest.ReadyNodeID(t)
	name := "berth-lp-hostreg-" + acctest.RandomHex(3)
	dir := t.TempDir()
	file := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(file, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	token := leastToken(t, `
namespace "default" {
  capabilities = ["host-volume-write"]
}
`)
	nomad := acctest.Nomad(t)
	registered := func() (bool, error) {
		vols, _, err := nomad.HostVolumes().List(nil, nil)
		if err != nil {
			return false, err
		}
		for _, v := range vols {
			if v.Name == name {
				return true, nil
			}
		}
		return false, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if ok, err := registered(); err != nil || ok {
				return fmt.Errorf("host volume %s registered after destroy (%v)", name, err)
			}
			if _, err := os.Stat(file); err != nil {
				return fmt.Errorf("the directory's file is gone after destroy: %v", err)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: withToken(token, fmt.Sprintf(`
resource "berth_host_volume_registration" "v" {
  name         = %q
  node_id      = %q
  host_path    = %q
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
}`, name, node, dir)),
			Check: func(*terraform.State) error {
				if ok, err := registered(); err != nil || !ok {
					return fmt.Errorf("host volume %s not in Nomad (%v)", name, err)
				}
				return nil
			},
		}},
	})
}
