package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestJobSteps runs steps against the provider; after the last, Nomad must
// hold job name no more and have stopped its allocations
// (CheckInstanceDestroyed).
func TestJobSteps(t *testing.T, name string, steps []resource.TestStep) {
	t.Helper()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: ProtoV6ProviderFactories,
		CheckDestroy:             CheckInstanceDestroyed(t, name),
		Steps:                    steps,
	})
}
