package migration_test

import (
	"os"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/server"
)

// TestMain runs the migration test against the provider in verify mode, on
// the ACL-enabled test agent: the configuration holds ACL objects.
func TestMain(m *testing.M) {
	os.Exit(acctest.RunACL(m, server.NewVerifyingServer("test")))
}
