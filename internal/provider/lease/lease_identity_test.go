package lease

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccLeaseIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-lease-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_reservation.l",
		Config: fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "1h"
  workload = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
}`, name),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}
