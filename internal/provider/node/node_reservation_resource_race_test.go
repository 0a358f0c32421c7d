package node

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
)

// TestAccNodeReservation_concurrentApplies starts two terraform processes
// with separate state at the same time, each asking for more reservations
// on one node than fit together. However the race goes, the sum of what
// succeeded never exceeds the node's allocatable CPU, every failure carries
// the capacity error, and the ledger in Nomad matches the two states
// exactly. It runs several rounds.
func TestAccNodeReservation_concurrentApplies(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	node := acctest.APINode(t, acctest.Nomad(t), f.Conc.NodeID)
	acpu, _, _ := acctest.AllocatableOf(node)
	const perProcess = 5
	each := acpu / 8 // 10 requests, room for 8
	bin := acctest.BuildProviderBinary(t)

	for round := 1; round <= 3; round++ {
		dirs := make([]string, 2)
		for p := range dirs {
			dirs[p] = t.TempDir()
			var b strings.Builder
			fmt.Fprintf(&b, "terraform {\n  required_providers {\n    berth = { source = \"berthhq/berth\" }\n  }\n}\n")
			for j := 0; j < perProcess; j++ {
				fmt.Fprintf(&b, "resource \"berth_node_reservation\" \"r%d\" {\n  name    = \"race-%d-p%d-r%d\"\n  node_id = %q\n  cpu     = %d\n  memory  = %d\n}\n",
					j, round, p, j, node.ID, each, raceMemoryMB)
			}
			acctest.WriteFile(t, filepath.Join(dirs[p], "main.tf"), b.String())
		}
		env := append(acctest.CleanEnv(), "NOMAD_ADDR="+os.Getenv("NOMAD_ADDR"), "NOMAD_TOKEN="+os.Getenv("NOMAD_TOKEN"),
			"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dirs[0], filepath.Dir(bin)), "TF_IN_AUTOMATION=1")

		outs := make([]string, 2)
		var wg sync.WaitGroup
		for p := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[p] = acctest.RunTerraformAllowFail(dirs[p], env, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=5")
			}()
		}
		wg.Wait()

		l, _ := acctest.ReadLedger(t, node.ID)
		var inStates []string
		for p := range dirs {
			inStates = append(inStates, stateNames(t, dirs[p], env)...)
		}
		var inLedger []string
		var sum int64
		for name, r := range l.Reservations {
			if strings.HasPrefix(name, fmt.Sprintf("race-%d-", round)) {
				inLedger = append(inLedger, name)
				sum += r.Request.CPU
			}
		}
		sort.Strings(inStates)
		sort.Strings(inLedger)
		if fmt.Sprint(inStates) != fmt.Sprint(inLedger) {
			t.Fatalf("round %d: ledger %v does not match the states %v", round, inLedger, inStates)
		}
		if sum > acpu {
			t.Fatalf("round %d: %d MHz reserved on a node with %d allocatable: over-committed", round, sum, acpu)
		}
		failures := 2*perProcess - len(inLedger)
		if failures < 2 {
			t.Fatalf("round %d: %d of 10 reservations succeeded; only 8 fit", round, len(inLedger))
		}
		combined := outs[0] + outs[1]
		if n := strings.Count(combined, "has not enough cpu"); n < 1 {
			t.Fatalf("round %d: %d failures but no capacity error in the output:\n%s", round, failures, combined)
		}
		checkRaceHolds(t, node.ID, inLedger, each)
		t.Logf("round %d: %d succeeded (%d of %d MHz), %d refused", round, len(inLedger), sum, acpu, failures)
		for p := range dirs {
			acctest.RunTerraform(t, dirs[p], env, "destroy", "-auto-approve", "-input=false", "-no-color", "-refresh=false")
		}
		if l, _ := acctest.ReadLedger(t, node.ID); len(l.Reservations) != 0 {
			t.Fatalf("round %d: %d reservations left after destroy", round, len(l.Reservations))
		}
		if left := liveHoldJobs(t, node.ID); len(left) != 0 {
			t.Fatalf("round %d: hold jobs left after destroy: %v", round, left)
		}
	}
}

// stateNames lists the reservation names in a directory's state.
func stateNames(t *testing.T, dir string, env []string) []string {
	t.Helper()
	out := acctest.RunTerraform(t, dir, env, "state", "list")
	var names []string
	for _, addr := range strings.Fields(out) {
		if !strings.HasPrefix(addr, "berth_node_reservation.") {
			continue
		}
		show := acctest.RunTerraform(t, dir, env, "state", "show", "-no-color", addr)
		for _, line := range strings.Split(show, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "name ") {
				names = append(names, strings.Trim(strings.TrimSpace(strings.SplitN(line, "=", 2)[1]), `"`))
			}
		}
	}
	return names
}

// raceMemoryMB is each race reservation's memory: enough for Nomad to hold
// it, small enough that memory never decides the race.
const raceMemoryMB = 16

// checkRaceHolds asserts that every reservation in the ledger has a hold
// job holding exactly its request (nothing is charged to it), and that no
// other hold job is live on the node.
func checkRaceHolds(t *testing.T, nodeID string, inLedger []string, cpu int64) {
	t.Helper()
	want := map[string]bool{}
	for _, name := range inLedger {
		id := hold.JobID(nodeID, name)
		want[id] = true
		job, _, err := acctest.Nomad(t).Jobs().Info(id, nil)
		if err != nil {
			t.Fatalf("reservation %s has no hold job %s: %v", name, id, err)
		}
		if got, _, _ := hold.Of(job); got != (capacity.Resources{CPU: cpu, MemoryMB: raceMemoryMB, DiskMB: hold.MinDiskMB}) {
			t.Fatalf("hold job %s holds %v, want %d MHz / %d MiB / %d MiB", id, got, cpu, raceMemoryMB, hold.MinDiskMB)
		}
	}
	for _, id := range liveHoldJobs(t, nodeID) {
		if !want[id] {
			t.Fatalf("hold job %s is live but its reservation is not in the ledger", id)
		}
	}
}

// liveHoldJobs lists the IDs of hold jobs for nodeID that are not stopped.
func liveHoldJobs(t *testing.T, nodeID string) []string {
	t.Helper()
	jobs, _, err := acctest.Nomad(t).Jobs().List(&api.QueryOptions{Prefix: hold.JobID(nodeID, "")})
	if err != nil {
		t.Fatalf("listing hold jobs: %v", err)
	}
	var out []string
	for _, j := range jobs {
		if !j.Stop {
			out = append(out, j.ID)
		}
	}
	return out
}
