package acctest

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// StartPrivateCluster starts three servers and one client on loopback for
// one test.
func StartPrivateCluster(t *testing.T, name string) (*devagent.Cluster, *api.Client) {
	t.Helper()
	requireNomadBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	begin := time.Now()
	cl, err := devagent.StartCluster(ctx, devagent.ClusterOptions{
		Name: name, DieWithParent: true,
		Client: devagent.Options{ChrootEnv: devagent.MinimalChrootEnv()},
	})
	if err != nil {
		t.Fatalf("starting a private Nomad cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := cl.Stop(context.Background()); err != nil {
			t.Errorf("stopping the private cluster: %v", err)
		}
	})
	t.Logf("private cluster of %d servers and client %s ready in %s", len(cl.Servers), cl.Client.Addr, time.Since(begin).Round(100*time.Millisecond))
	c, err := cl.Client.Client()
	if err != nil {
		t.Fatal(err)
	}
	return cl, c
}
