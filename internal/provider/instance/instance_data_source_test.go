package instance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func TestAccInstanceDataSource_basic(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1"}.String() + `
data "berth_instance" "t" {
  name = berth_instance.t.name
}`
	ds := "data.berth_instance.t"
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config:      `data "berth_instance" "t" { name = "no-such-instance-berth" }`,
			ExpectError: regexp.MustCompile(`(?s)Instance not found.*no-such-instance-berth`),
		},
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("managed_by_berth"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("allocations"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"client_status": knownvalue.StringExact("running"),
						"healthy":       knownvalue.Bool(true),
						"rss_mib":       knownvalue.NotNull(),
						"cpu_percent":   knownvalue.NotNull(),
						"tasks": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("app"), "state": knownvalue.StringExact("running"),
							"last_event": knownvalue.StringExact("Started: Task started by client"),
						})}),
					}),
				})),
			},
			Check: func(s *terraform.State) error {
				return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					id := s.RootModule().Resources[ds].Primary.Attributes["allocations.0.id"]
					for _, a := range allocs {
						if a.ID == id && a.ClientStatus == "running" {
							return nil
						}
					}
					return fmt.Errorf("allocation %s in the data source is not a running allocation in Nomad", id)
				})(s)
			},
		},
	})
}

// TestAccInstanceDataSource_disconnectedAllocationIsLive freezes a client
// (SIGSTOP) that runs a job whose group tolerates disconnects, so Nomad
// reports its allocation "unknown": its task may well still run. berth
// counts it as live everywhere: the data source lists it, and the wait
// that precedes a purge does not end.
func TestAccInstanceDataSource_disconnectedAllocationIsLive(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	sfx := acctest.RandomHex(3)
	// A private server and client: a frozen node in the shared cluster
	// would stall other tests (Nomad places host volumes on any node,
	// even one that does not answer).
	srv, client := startPrivateServerAndClient(t, "berth-acc-disc-"+sfx)
	c, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	name := "berth-acc-disc-" + sfx
	job := &api.Job{
		ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), Datacenters: []string{"*"}, NodePool: acctest.Ptr(client.NodePool()),
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
			Disconnect: &api.DisconnectStrategy{LostAfter: acctest.Ptr(30 * time.Minute)},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(20), MemoryMB: acctest.Ptr(16)},
			}},
		}},
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	allocStatus := func() (string, error) {
		allocs, _, err := c.Jobs().Allocations(name, false, nil)
		if err != nil || len(allocs) == 0 {
			return "", err
		}
		return allocs[0].ClientStatus, nil
	}
	acctest.WaitFor(t, "the allocation to run", 2*time.Minute, func() (bool, error) {
		s, err := allocStatus()
		return s == api.AllocClientStatusRunning, err
	})

	if err := syscall.Kill(client.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-in first-out: the client runs again before the
	// agents are stopped.
	t.Cleanup(func() { _ = syscall.Kill(client.PID, syscall.SIGCONT) })
	acctest.WaitFor(t, "Nomad to mark the allocation unknown", 3*time.Minute, func() (bool, error) {
		s, err := allocStatus()
		return s == api.AllocClientStatusUnknown, err
	})

	// The wait before a purge keeps going; it ends only with its context.
	nc, err := nomadclient.New(nomadclient.Config{Address: srv.Addr, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	err = nc.WaitAllocationsStopped(ctx, "default", name)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "on a disconnected client") {
		t.Errorf("the wait before a purge ended with %v; want it still waiting on the allocation of the disconnected client "+
			"when its context ends", err)
	}

	ds := "data.berth_instance.t"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "berth" {
  address = %q
}
data "berth_instance" "t" { name = %q }`, srv.Addr, name),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("allocations"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"client_status": knownvalue.StringExact("unknown"),
						"cpu_percent":   knownvalue.Null(),
					}),
				})),
			},
		}},
	})
}

// privateClient is a client agent of a private cluster, in its own pool.
type privateClient struct {
	*devagent.Agent
	pool string
}

func (p privateClient) NodePool() string { return p.pool }

// startPrivateServerAndClient starts a server (with its own client) and one more
// client in node pool <name>, both stopped when the test ends.
func startPrivateServerAndClient(t *testing.T, name string) (*devagent.Agent, privateClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	stop := func(a *devagent.Agent) {
		acctest.TrackAgent(a) // stopped at exit too, should the test be killed
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := a.Stop(ctx); err != nil {
				t.Logf("stopping agent %s: %v", a.Addr, err)
			}
		})
	}
	srv, err := devagent.Start(ctx, devagent.Options{Name: name + "-srv", ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
	if err != nil {
		t.Fatalf("starting a private server: %v", err)
	}
	stop(srv)
	cl, err := devagent.Start(ctx, devagent.Options{Name: name, NodePool: name, Servers: []string{srv.RPCAddr}, Token: srv.Token,
		ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
	if err != nil {
		t.Fatalf("starting a private client: %v", err)
	}
	stop(cl)
	return srv, privateClient{Agent: cl, pool: name}
}
