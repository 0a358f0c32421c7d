package volume

import (
	"fmt"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccVolumeQuery_adoptAgain(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vol-query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, fmt.Sprintf(`
provider "berth" {}
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name), "berth_volume.v", fmt.Sprintf(`list "berth_volume" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name), name)
}
