package instance

import (
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccInstanceIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   acctest.InstanceAddr,
		Config: acctest.InstanceConfig{Name: name}.String(),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
	})
}
