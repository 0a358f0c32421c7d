package provider_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// faultStack is a node reservation with a volume and an instance placed
// into it, all on one private agent's node. The instance is created after
// the volume: a crash while Nomad creates a volume, after the node made it
// and before the servers recorded it, leaves a volume the servers never
// learn about and that blocks its name on the node (a Nomad limitation
// berth can only report, see volumeNameTakenOnNode), so the crash during
// create is aimed at the instance's rollout.
type faultStack struct {
	addr, node, name string
	cpu              int64  // reservation CPU
	capMax           string // volume capacity_max
	capMaxMiB        int64
	env              string // instance env value: a new one is a new job version
	appCPU           int64  // instance CPU, charged to the reservation
	// minHealthy is the instance's min_healthy_time: long where a fault
	// must hit a running deployment, short elsewhere to save time.
	minHealthy string
}

func (f faultStack) String() string {
	return fmt.Sprintf(`
provider "berth" {
  address = %[1]q
}

resource "berth_node_reservation" "r" {
  name    = %[3]q
  node_id = %[2]q
  cpu     = %[4]d
  memory  = 256
  disk    = 512
}

resource "berth_volume" "v" {
  name             = "%[3]s-vol"
  capacity_min     = "10MiB"
  capacity_max     = %[5]q
  node_reservation = berth_node_reservation.r.id
}

# After the volume: see faultStack.
resource "berth_instance" "i" {
  name             = "%[3]s-app"
  node_reservation = berth_node_reservation.r.id
  depends_on       = [berth_volume.v]
  update = { min_healthy_time = %[8]q, healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = %[7]d
      memory  = 64
      env     = { REVISION = %[6]q }
    }
  }
}
`, f.addr, f.node, f.name, f.cpu, f.capMax, f.env, f.appCPU, f.minHealthy)
}

// TestAccFault_agentKilledMidApply crashes the only Nomad agent (SIGKILL)
// twice while an apply is in flight: once while creating a reservation, a
// volume and an instance (when the job is registered and its deployment
// waits out min_healthy_time), once while updating all three (when the
// resized reservation reaches the ledger, so the volume and instance
// updates are on their way). After each crash the agent restarts on the
// same data dir, and whatever the interrupted apply did, the next apply
// converges: empty plan, and Nomad holds exactly what state says, with no
// extra job, volume, reservation or ledger charge.
func TestAccFault_agentKilledMidApply(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	begin := time.Now()
	agent, nomad := acctest.StartPrivateAgent(t, "berth-fault-kill")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cli := acctest.NewTFCLI(t)
	stack := faultStack{addr: agent.Addr, node: agent.NodeID, name: "fault-" + acctest.RandomHex(3), cpu: 600, capMax: "20MiB", capMaxMiB: 20, env: "one", appCPU: 100, minHealthy: "8s"}
	cli.Init(ctx, stack.String())
	job := stack.name + "-app"

	crash := func() error {
		if err := agent.Kill(); err != nil {
			return err
		}
		t.Logf("agent killed (pid %d)", agent.PID)
		return nil
	}
	restart := func() {
		t.Helper()
		b := time.Now()
		if err := agent.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("agent restarted in %s (pid %d)", time.Since(b).Round(100*time.Millisecond), agent.PID)
	}

	// 1. Create, killed once the job is registered and its deployment runs.
	cli.ApplyWithFault(ctx, "create", func() (bool, error) {
		d, _, err := nomad.Jobs().LatestDeployment(job, nil)
		return err == nil && d != nil && d.Status == api.DeploymentStatusRunning, err
	}, crash)
	restart()
	cli.MustApply(ctx, "converge after the crash during create")
	cli.ExpectEmptyPlan(ctx, "after create")
	checkFaultStack(t, nomad, cli.State(ctx), stack)

	// 2. Update all three, killed once the reservation is resized.
	stack.cpu, stack.capMax, stack.capMaxMiB, stack.env = 700, "30MiB", 30, "two"
	cli.Write(stack.String())
	cli.ApplyWithFault(ctx, "update", func() (bool, error) {
		l, err := readLedgerFrom(nomad, agent.NodeID)
		return err == nil && l.Reservations[stack.name].Request.CPU == stack.cpu, err
	}, crash)
	restart()
	cli.MustApply(ctx, "converge after the crash during update")
	cli.ExpectEmptyPlan(ctx, "after update")
	checkFaultStack(t, nomad, cli.State(ctx), stack)

	cli.Destroy(ctx)
	checkNothingLeft(t, nomad, agent.NodeID)
	t.Logf("fault scenario took %s", time.Since(begin).Round(time.Second))
}

// readLedgerFrom reads a node's ledger from the given Nomad.
func readLedgerFrom(c *api.Client, nodeID string) (ledger.Ledger, error) {
	v, _, err := c.Variables().Read(nomadclient.LedgerPath(nodeID), nil)
	if err != nil {
		return ledger.Ledger{}, err
	}
	return ledger.Decode(nodeID, v.Items)
}

// checkFaultStack asserts that Nomad holds exactly the stack state
// describes: one job, one volume, one reservation whose consumers are the
// volume and the instance, all as configured.
func checkFaultStack(t *testing.T, c *api.Client, st map[string]*tfjson.StateResource, f faultStack) {
	t.Helper()
	res, vol, inst := st["berth_node_reservation.r"], st["berth_volume.v"], st["berth_instance.i"]
	if res == nil || vol == nil || inst == nil {
		t.Fatalf("state lacks a resource: reservation %v, volume %v, instance %v", res != nil, vol != nil, inst != nil)
	}

	jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	var jobIDs []string
	for _, j := range jobs {
		if j.Status != "dead" {
			jobIDs = append(jobIDs, j.ID)
		}
	}
	holdID := hold.JobID(f.node, f.name)
	sort.Strings(jobIDs)
	if want := []string{holdID, f.name + "-app"}; !slices.Equal(jobIDs, want) {
		t.Errorf("live jobs in Nomad %v, want only %v", jobIDs, want)
	}
	job, _, err := c.Jobs().Info(f.name+"-app", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatUint(*job.JobModifyIndex, 10); got != stateAttr(inst, "job_modify_index") {
		t.Errorf("job modify index in Nomad %s, in state %s", got, stateAttr(inst, "job_modify_index"))
	}
	if got := strconv.FormatUint(*job.Version, 10); got != stateAttr(inst, "job_version") {
		t.Errorf("job version in Nomad %s, in state %s", got, stateAttr(inst, "job_version"))
	}
	if env := job.TaskGroups[0].Tasks[0].Env["REVISION"]; env != f.env {
		t.Errorf("job runs REVISION=%q, want %q", env, f.env)
	}

	vols, _, err := c.HostVolumes().List(nil, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 || vols[0].ID != stateAttr(vol, "id") {
		t.Errorf("host volumes in Nomad %s, want only %s from state", volumeList(vols), stateAttr(vol, "id"))
	} else if v, _, err := c.HostVolumes().Get(vols[0].ID, nil); err != nil || v.RequestedCapacityMaxBytes != f.capMaxMiB<<20 {
		t.Errorf("volume %s in Nomad (err %v): %+v; want capacity_max %s", vols[0].ID, err, v, f.capMax)
	}

	l, err := readLedgerFrom(c, f.node)
	if err != nil {
		t.Fatalf("ledger of %s: %v", f.node, err)
	}
	if len(l.Reservations) != 1 {
		t.Errorf("ledger holds %d reservations %v, want only %q", len(l.Reservations), sortedNames(l.Reservations), f.name)
	}
	r := l.Reservations[f.name]
	if r.Request.CPU != f.cpu || stateAttr(res, "cpu") != strconv.FormatInt(f.cpu, 10) {
		t.Errorf("reservation cpu in the ledger %d, in state %s, want %d", r.Request.CPU, stateAttr(res, "cpu"), f.cpu)
	}
	instKey, volKey := nomadclient.InstanceConsumer("default", f.name+"-app"), nomadclient.VolumeConsumer("default", f.name+"-vol")
	if len(r.Consumers) != 2 {
		t.Errorf("ledger consumers %v, want exactly %s and %s", r.Consumers, instKey, volKey)
	}
	if got := r.Consumers[instKey]; got.CPU != f.appCPU || got.MemoryMB != 64 {
		t.Errorf("instance charge %+v, want %d MHz / 64 MiB", got, f.appCPU)
	}
	if got := job.TaskGroups[0].Tasks[0].Resources.CPU; got == nil || int64(*got) != f.appCPU {
		t.Errorf("job asks for cpu %v, want %d", got, f.appCPU)
	}
	if got := r.Consumers[volKey]; got.DiskMB != f.capMaxMiB {
		t.Errorf("volume charge %+v, want %d MiB disk", got, f.capMaxMiB)
	}
	// The hold holds exactly what the consumers leave unused.
	want, _ := hold.Size(r.Remaining())
	if hj, _, err := c.Jobs().Info(holdID, nil); err != nil {
		t.Errorf("reading hold job %s: %v", holdID, err)
	} else if got, _, _ := hold.Of(hj); got != want {
		t.Errorf("hold job %s holds %v, want %v (the reservation's unused budget)", holdID, got, want)
	}
}

// checkNothingLeft asserts that destroy removed every job, volume and
// ledger entry.
func checkNothingLeft(t *testing.T, c *api.Client, nodeID string) {
	t.Helper()
	jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*"})
	if err != nil || len(jobs) != 0 {
		t.Errorf("jobs left after destroy: %d (err %v)", len(jobs), err)
	}
	vols, _, err := c.HostVolumes().List(nil, &api.QueryOptions{Namespace: "*"})
	if err != nil || len(vols) != 0 {
		t.Errorf("volumes left after destroy: %s (err %v)", volumeList(vols), err)
	}
	if l, err := readLedgerFrom(c, nodeID); err == nil && len(l.Reservations) > 0 {
		t.Errorf("ledger entries left after destroy: %v", sortedNames(l.Reservations))
	}
}

func volumeList(vols []*api.HostVolumeStub) string {
	var out []string
	for _, v := range vols {
		out = append(out, v.Name+"="+v.ID)
	}
	return fmt.Sprint(out)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestAccFault_agentKilledBeforeReply loses the answer to one of berth's
// writes after Nomad carried it out (see faultProxy): on create, for the
// reservation's ledger write, the volume's creation and the instance's job
// registration, the agent crashes right then and restarts; on update, for
// the volume's resize and the instance's new job version, only the answer
// is lost (a network blip) while the agent lives on. berth cannot know
// whether the write happened; whatever it reports, the next apply
// converges with nothing orphaned and the ledger charging what runs, and
// destroy leaves nothing behind.
func TestAccFault_agentKilledBeforeReply(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	write := func(r *http.Request) bool { return r.Method == http.MethodPut || r.Method == http.MethodPost }
	ledgerWrite := func(r *http.Request) bool {
		return write(r) && strings.HasPrefix(r.URL.Path, "/v1/var/"+nomadclient.LedgerPrefix)
	}
	volumeWrite := func(r *http.Request) bool { return write(r) && r.URL.Path == "/v1/volume/host/create" }
	// The instance's registration, not a hold job's.
	jobWrite := func(r *http.Request) bool {
		if !write(r) || r.URL.Path != "/v1/jobs" {
			return false
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		return !bytes.Contains(body, []byte(hold.JobPrefix))
	}
	for _, sc := range []struct {
		name   string
		match  func(*http.Request) bool
		update func(*faultStack) // nil: the fault hits the create
	}{
		{"reservation", ledgerWrite, nil},
		{"volume", volumeWrite, nil},
		{"instance", jobWrite, nil},
		{"volume-update", volumeWrite, func(f *faultStack) { f.capMax, f.capMaxMiB = "30MiB", 30 }},
		{"instance-update", jobWrite, func(f *faultStack) { f.appCPU, f.env = 150, "two" }},
	} {
		t.Run(sc.name, func(t *testing.T) {
			// Each scenario has its own agent (one it may kill) and proxy,
			// so the five run side by side instead of one after another.
			t.Parallel()
			begin := time.Now()
			defer func() { t.Logf("the scenario took %s", time.Since(begin).Round(time.Second)) }()
			agent, nomad := acctest.StartPrivateAgent(t, "berth-fault-reply-"+sc.name)
			proxy := startFaultProxy(t, agent.Addr)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cli := acctest.NewTFCLI(t)
			stack := faultStack{addr: proxy.URL, node: agent.NodeID, name: "reply-" + sc.name + "-" + acctest.RandomHex(2),
				cpu: 600, capMax: "20MiB", capMaxMiB: 20, env: "one", appCPU: 100, minHealthy: "1s"}
			cli.Init(ctx, stack.String())
			crash := sc.update == nil
			if !crash {
				cli.MustApply(ctx, "create")
				sc.update(&stack)
				cli.Write(stack.String())
			}
			lostBefore := len(proxy.lost())
			proxy.arm(sc.match, func() {
				if !crash {
					return
				}
				if err := agent.Kill(); err != nil {
					t.Errorf("killing the agent: %v", err)
				}
			})
			took, err := cli.Apply(ctx)
			out := cli.Out.Take()
			if lost := proxy.lost(); len(lost) != lostBefore+1 {
				t.Fatalf("the fault was not injected (replies lost: %v); apply error %v\n%s", lost, err, out)
			}
			if err != nil {
				t.Logf("the apply whose reply was lost failed after %s:\n%s", took.Round(100*time.Millisecond), acctest.DiagnosticsOf(out))
			} else {
				t.Logf("the apply whose reply was lost succeeded in %s", took.Round(100*time.Millisecond))
			}
			if crash {
				b := time.Now()
				if err := agent.Restart(ctx); err != nil {
					t.Fatal(err)
				}
				t.Logf("agent restarted in %s", time.Since(b).Round(100*time.Millisecond))
			}
			cli.MustApply(ctx, "converge after the lost reply")
			cli.ExpectEmptyPlan(ctx, "after the lost reply")
			checkFaultStack(t, nomad, cli.State(ctx), stack)
			cli.Destroy(ctx)
			checkNothingLeft(t, nomad, agent.NodeID)
		})
	}
}
