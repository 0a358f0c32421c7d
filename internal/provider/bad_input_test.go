package provider_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/server"
)

// badInput is one configuration berth must refuse before anything reaches
// Nomad. In config, %[1]s is a name prefix unique to the case (every object
// the case could create starts with it) and %[2]s the ID of a real node.
type badInput struct {
	name    string
	config  string
	address string // the resource or data source the error is about
	path    string // the attribute path, as the framework prints it
	summary string // regexp matching the error's summary
	// atApply: the rule depends on the cluster (a driver, a node, a
	// reservation), so the plan only warns, at the same attribute with the
	// same summary, and the apply refuses it before writing anything
	// (plan_advice.go): a plan error would block the destroy of a failed
	// apply.
	atApply bool
}

// TestAccBadInput_rejectedAtPlan runs every bad input through the real
// terraform CLI against the test Nomad agent. Each must give exactly one
// error (counted in the CLI's output), that error must come from validate
// or plan (never apply; a rule that depends on the cluster: the apply,
// after a warning at plan) at the expected attribute (checked on the
// diagnostics the provider returned over the protocol), and nothing may
// exist in Nomad afterwards: no job, volume or ledger entry whose name
// starts with the case's prefix. The steps are ordinary apply steps, so a
// bad input berth let through would be created and caught here.
func TestAccBadInput_rejectedAtPlan(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nodeID := badInputNode(t)
	cases := append(append(append(badInstanceInputs(), badVolumeInputs()...), badReservationInputs()...), badDataSourceInputs()...)
	cases = append(cases, badRegistrationInputs()...)
	cases = append(cases, badTokenInputs()...)
	if len(cases) < 30 {
		t.Fatalf("the table has %d cases; the bad-input table must keep at least 30", len(cases))
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runBadInput(t, tc, "bad-"+acctest.RandomHex(5), nodeID)
		})
	}
}

func runBadInput(t *testing.T, tc badInput, prefix, nodeID string) {
	rec := &acctest.DiagRecorder{}
	var cliErr error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := server.NewVerifyingServer("test")()
				return &acctest.RecordingServer{ProviderServer: s, Rec: rec}, err
			},
		},
		// Called with the step's error before anything is destroyed, so
		// Nomad is checked in the state the failed step left.
		ErrorCheck: func(err error) error {
			cliErr = err
			acctest.AssertNothingInNomad(t, prefix)
			return nil
		},
		Steps: []resource.TestStep{{
			Config: strings.NewReplacer("%[1]s", prefix, "%[2]s", nodeID).Replace(tc.config),
			Check: func(*terraform.State) error {
				acctest.AssertNothingInNomad(t, prefix)
				return fmt.Errorf("the bad input was applied without an error")
			},
		}},
	})
	acctest.AssertNothingInNomad(t, prefix)
	if cliErr == nil {
		t.Fatal("terraform reported no error")
	}
	out := cliErr.Error()
	if n := len(cliErrorRE.FindAllString(out, -1)); n != 1 {
		t.Fatalf("terraform reported %d errors, want exactly 1:\n%s\nthe provider returned: %+v", n, out, rec.Errors())
	}
	if !regexp.MustCompile(`(?m)^Error: (` + tc.summary + `)$`).MatchString(out) {
		t.Errorf("the error's summary does not match %q:\n%s", tc.summary, out)
	}
	if !strings.Contains(out, "with "+tc.address+",") {
		t.Errorf("the error is not about %s:\n%s", tc.address, out)
	}
	diags := rec.Errors()
	if len(diags) != 1 {
		t.Fatalf("the provider returned %d distinct errors, want 1: %+v\nterraform said:\n%s", len(diags), diags, out)
	}
	d := diags[0]
	if d.Path != tc.path {
		t.Errorf("the error is at %q, want %q: %+v", d.Path, tc.path, d)
	}
	switch {
	case tc.atApply && d.Rpc != "ApplyResourceChange":
		t.Errorf("the error came from %s; a rule that depends on the cluster must fail the apply, not the plan: %+v", d.Rpc, d)
	case tc.atApply:
		if !slices.ContainsFunc(rec.WarningList(), func(w acctest.RecordedDiag) bool {
			return w.Rpc == "PlanResourceChange" && w.Path == tc.path && w.Summary == d.Summary && strings.Contains(w.Detail, shared.ApplyRefuses)
		}) {
			t.Errorf("the plan did not warn about it at %s: warnings %+v", tc.path, rec.WarningList())
		}
	case d.Rpc == "ApplyResourceChange":
		t.Errorf("the error came at apply; it must come at validate or plan time: %+v", d)
	}
	if !regexp.MustCompile(`^(`+tc.summary+`)$`).MatchString(d.Summary) || strings.TrimSpace(d.Detail) == "" {
		t.Errorf("the error must have a summary matching %q and a detail: %+v", tc.summary, d)
	}
}

// cliErrorRE finds the start of each error diagnostic terraform prints.
// A detail line may itself start with "Error: " (timetypes quotes Go's
// error that way), but only a diagnostic's first line follows a blank line.
var cliErrorRE = regexp.MustCompile(`(?:\A|\n[ \t]*\n)Error: `)

// badInputNode is the ID of a node of the test cluster.
func badInputNode(t *testing.T) string {
	t.Helper()
	nodes, _, err := acctest.Nomad(t).Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("listing nodes: %v (%d nodes)", err, len(nodes))
	}
	return nodes[0].ID
}
