package server

import (
	"os"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestMain starts a throwaway Nomad agent for acceptance tests when
// NOMAD_ADDR is unset, so tests never touch a cluster they did not start
// unless told to, and stops it (and any extra agents) whatever the outcome.
func TestMain(m *testing.M) {
	os.Exit(acctest.Run(m, newServer("test", true)))
}
