package provider_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccQuickstart_applyPlanDestroy applies examples/quickstart as a user
// would with the CLI under test (Terraform or OpenTofu): the applications
// run in Nomad, the next plan changes no resource (its outputs list the
// cluster's nodes, which other tests add), and destroy removes them.
func TestAccQuickstart_applyPlanDestroy(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	raw, err := os.ReadFile("../../examples/quickstart/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	// The test serves berth in process under hashicorp/berth on the CLI's
	// own registry host; the example names the published address.
	config := strings.Replace(string(raw), `source = "berthhq/berth"`, `source = "hashicorp/berth"`, 1)
	// The example is written for make up's one-node agent. Here other
	// tests add nodes to the default pool as it runs, and the volume could
	// land on one the scheduler then filters out for the writer: keep the
	// volume, and so its writer, on the test agent's own node.
	if acctest.MainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (the quickstart's volume is put on its node)")
	}
	pinned := strings.Replace(config, `name       = "notes"`, fmt.Sprintf("name       = \"notes\"\n  node_id    = %q", acctest.MainAgent.NodeID), 1)
	if pinned == config {
		t.Fatal(`examples/quickstart no longer has the "notes" volume this test pins`)
	}
	config = pinned
	c := acctest.NewTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c.Init(ctx, config)
	c.MustApply(ctx, "quickstart")
	jobs := acctest.Nomad(t).Jobs()
	for _, name := range []string{"hello", "notes-writer"} {
		allocs, _, err := jobs.Allocations(name, false, nil)
		if err != nil {
			t.Fatalf("reading job %s: %v", name, err)
		}
		if n := acctest.RunningAllocs(allocs); n != 1 {
			t.Fatalf("job %s runs %d allocations after the quickstart, want 1", name, n)
		}
	}
	c.ExpectNoResourceChanges(ctx, "quickstart")
	c.Destroy(ctx)
	for _, name := range []string{"hello", "notes-writer"} {
		if _, _, err := jobs.Info(name, nil); err == nil || !acctest.IsNotFound(err) {
			t.Fatalf("job %s after destroy: %v; want it purged", name, err)
		}
	}
	vols, _, err := acctest.Nomad(t).HostVolumes().List(&api.HostVolumeListRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vols {
		if v.Name == "notes" {
			t.Fatal(fmt.Errorf("host volume notes (%s) is still in Nomad after destroy", v.ID))
		}
	}
}
