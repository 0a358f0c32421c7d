package provider

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// TestAccInstanceDataSource_disconnectedAllocationIsLive freezes a client
// (SIGSTOP) that runs a job whose group tolerates disconnects, so Nomad
// reports its allocation "unknown": its task may well still run. berth
// counts it as live everywhere: the data source lists it, and the wait
// that precedes a purge does not end.
func TestAccInstanceDataSource_disconnectedAllocationIsLive(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	sfx := randomHex(3)
	pool := "berth-acc-disc-" + sfx
	agent, err := startClient(devagent.Options{Name: pool, NodePool: pool}) // its own pool: no other test's work lands there
	if err != nil {
		t.Skip(err) // needs a test-started server
	}
	c := testNomad(t)
	name := "berth-acc-disc-" + sfx
	job := &api.Job{
		ID: ptr(name), Name: ptr(name), Type: ptr("service"), Datacenters: []string{"*"}, NodePool: ptr(pool),
		TaskGroups: []*api.TaskGroup{{
			Name: ptr("app"), Count: ptr(1),
			Disconnect: &api.DisconnectStrategy{LostAfter: ptr(30 * time.Minute)},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: ptr(20), MemoryMB: ptr(16)},
			}},
		}},
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(name, true, nil) })
	allocStatus := func() (string, error) {
		allocs, _, err := c.Jobs().Allocations(name, false, nil)
		if err != nil || len(allocs) == 0 {
			return "", err
		}
		return allocs[0].ClientStatus, nil
	}
	waitFor(t, "the allocation to run", 2*time.Minute, func() (bool, error) {
		s, err := allocStatus()
		return s == api.AllocClientStatusRunning, err
	})

	if err := syscall.Kill(agent.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Registered after the job's cleanup, so it runs first: the agent must
	// run again before anything stops or purges.
	t.Cleanup(func() { _ = syscall.Kill(agent.PID, syscall.SIGCONT) })
	waitFor(t, "Nomad to mark the allocation unknown", 3*time.Minute, func() (bool, error) {
		s, err := allocStatus()
		return s == api.AllocClientStatusUnknown, err
	})

	// The wait before a purge keeps going; it ends only with its context.
	nc, err := nomadclient.New(nomadclient.Config{Address: os.Getenv("NOMAD_ADDR"), Token: os.Getenv("NOMAD_TOKEN")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if err := nc.WaitAllocationsStopped(ctx, "default", name); err == nil {
		t.Error("the wait before a purge ended while an allocation may still run on a disconnected client")
	}

	ds := "data.berth_instance.t"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`data "berth_instance" "t" { name = %q }`, name),
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
