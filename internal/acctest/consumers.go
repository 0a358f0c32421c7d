package acctest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// consumerNodes are client agents for the tests of work placed into node
// reservations, apart from the shared fleet, whose node reservation tests
// need exact numbers on their nodes. a and b share a node pool (moves
// between nodes, scheduling); quiet sits alone in another, and only
// TestAccNodeReservation_vanishedConsumers writes its ledger, so that test
// can require the ledger's modify index not to move.
type consumerNodes struct {
	A, B, Quiet     *devagent.Agent
	Pool, QuietPool string
}

var (
	consumerNodesOnce sync.Once
	consumerNodesVal  *consumerNodes
	consumerNodesErr  error
)

func ConsumerFleet(t *testing.T) *consumerNodes {
	t.Helper()
	if MainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	consumerNodesOnce.Do(func() {
		sfx := RandomHex(4)
		n := &consumerNodes{Pool: "berth-acc-use-" + sfx, QuietPool: "berth-acc-quiet-" + sfx}
		for _, c := range []struct {
			dst        **devagent.Agent
			name, pool string
		}{
			{&n.A, "berth-acc-use-a-" + sfx, n.Pool},
			{&n.B, "berth-acc-use-b-" + sfx, n.Pool},
			{&n.Quiet, "berth-acc-quiet-" + sfx, n.QuietPool},
		} {
			// The minimal chroot keeps the exec driver of lease timers fast.
			o := devagent.Options{Name: c.name, NodePool: c.pool, ChrootEnv: devagent.MinimalChrootEnv()}
			if *c.dst, consumerNodesErr = StartClient(o); consumerNodesErr != nil {
				return
			}
		}
		consumerNodesVal = n
	})
	if consumerNodesVal == nil {
		t.Fatalf("client agents for the consumer tests failed to start: %v", consumerNodesErr)
	}
	return consumerNodesVal
}

// RecordingFactories serves the provider through a recordingServer, so a
// test sees each diagnostic's attribute path and the call that returned it.
func RecordingFactories(rec *DiagRecorder) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"berth": func() (tfprotov6.ProviderServer, error) {
			s, err := NewServer()
			return &RecordingServer{ProviderServer: s, Rec: rec}, err
		},
	}
}

// RequireRefusedAtApply fails t unless the provider returned exactly one
// error, from the apply, at node_reservation, with this summary, after a
// warning saying so at plan: a budget depends on the cluster, so the plan
// only warns (plan_advice.go).
func RequireRefusedAtApply(t *testing.T, rec *DiagRecorder, summary string) {
	t.Helper()
	errs := rec.Errors()
	if len(errs) != 1 {
		t.Fatalf("the provider returned %d errors, want exactly 1: %+v", len(errs), errs)
	}
	if d := errs[0]; d.Rpc != "ApplyResourceChange" || d.Path != "node_reservation" || d.Summary != summary {
		t.Fatalf("error %+v, want %q at node_reservation from ApplyResourceChange", d, summary)
	}
	if !slices.ContainsFunc(rec.WarningList(), func(w RecordedDiag) bool {
		return w.Rpc == "PlanResourceChange" && w.Path == "node_reservation" && w.Summary == summary
	}) {
		t.Fatalf("no plan warning %q at node_reservation: %+v", summary, rec.WarningList())
	}
}

// UsedBy returns what consumer is charged on reservation name of node.
func UsedBy(t *testing.T, node, name, consumer string) (capacity.Resources, bool) {
	l, _ := ReadLedger(t, node)
	c, ok := l.Reservations[name].Consumers[consumer]
	return c, ok
}

func CheckCharge(t *testing.T, node, name, consumer string, want capacity.Resources) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, ok := UsedBy(t, node, name, consumer)
		if !ok || got != want {
			l, _ := ReadLedger(t, node)
			return fmt.Errorf("%s is charged %+v (charged: %v) on %q, want %+v; reservation in Nomad: %+v", consumer, got, ok, name, want, l.Reservations[name])
		}
		return nil
	}
}
