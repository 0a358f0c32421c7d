package volume

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestVolumeFamily_identityIntercepted: every resource of the family is
// under the identity interceptor, which records the identities (no
// resource records its own).
func TestVolumeFamily_identityIntercepted(t *testing.T) {
	t.Parallel()
	for _, ctor := range shared.InterceptIdentity(Resources()) {
		if r := ctor(); shared.Unwrap(r) == r {
			t.Errorf("%T is not under the identity interceptor", r)
		}
	}
}

func TestAccVolumeIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vol-identity-" + acctest.RandomHex(3)
	var volID string
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_volume.v",
		Config: fmt.Sprintf(`
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringRegexp(uuidRe),
		},
		InNomad: func(s *terraform.State) error {
			volID = s.RootModule().Resources["berth_volume.v"].Primary.ID
			v, _, err := acctest.Nomad(t).HostVolumes().Get(volID, nil)
			if err != nil || v.Name != name {
				return fmt.Errorf("host volume %s in Nomad: %+v, %v; want one named %s", volID, v, err, name)
			}
			return nil
		},
	})
}
