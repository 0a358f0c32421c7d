package leastprivilege_test

import (
	"os"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/server"
)

// TestMain runs these tests on the ACL-enabled test agent (see
// acctest.RunACL): each one applies a resource with a token that holds only
// the capabilities its docs name.
func TestMain(m *testing.M) {
	os.Exit(acctest.RunACL(m, server.NewVerifyingServer("test")))
}
