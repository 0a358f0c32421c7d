package volume_test

import (
	"os"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/server"
)

// TestMain runs the family's tests against the provider in verify mode
// (see acctest.Run).
func TestMain(m *testing.M) {
	os.Exit(acctest.Run(m, server.NewVerifyingServer("test")))
}
