package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
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
	testAccPreCheck(t)
	t.Parallel()
	nodeID := badInputNode(t)
	cases := append(append(append(badInstanceInputs(), badVolumeInputs()...), badReservationInputs()...), badDataSourceInputs()...)
	cases = append(cases, badRegistrationInputs()...)
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
			runBadInput(t, tc, "bad-"+randomHex(5), nodeID)
		})
	}
}

func runBadInput(t *testing.T, tc badInput, prefix, nodeID string) {
	rec := &diagRecorder{}
	var cliErr error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := newServer("test", true)()
				return &recordingServer{ProviderServer: s, rec: rec}, err
			},
		},
		// Called with the step's error before anything is destroyed, so
		// Nomad is checked in the state the failed step left.
		ErrorCheck: func(err error) error {
			cliErr = err
			assertNothingInNomad(t, prefix)
			return nil
		},
		Steps: []resource.TestStep{{
			Config: strings.NewReplacer("%[1]s", prefix, "%[2]s", nodeID).Replace(tc.config),
			Check: func(*terraform.State) error {
				assertNothingInNomad(t, prefix)
				return fmt.Errorf("the bad input was applied without an error")
			},
		}},
	})
	assertNothingInNomad(t, prefix)
	if cliErr == nil {
		t.Fatal("terraform reported no error")
	}
	out := cliErr.Error()
	if n := len(cliErrorRE.FindAllString(out, -1)); n != 1 {
		t.Fatalf("terraform reported %d errors, want exactly 1:\n%s\nthe provider returned: %+v", n, out, rec.errors())
	}
	if !regexp.MustCompile(`(?m)^Error: (` + tc.summary + `)$`).MatchString(out) {
		t.Errorf("the error's summary does not match %q:\n%s", tc.summary, out)
	}
	if !strings.Contains(out, "with "+tc.address+",") {
		t.Errorf("the error is not about %s:\n%s", tc.address, out)
	}
	diags := rec.errors()
	if len(diags) != 1 {
		t.Fatalf("the provider returned %d distinct errors, want 1: %+v\nterraform said:\n%s", len(diags), diags, out)
	}
	d := diags[0]
	if d.path != tc.path {
		t.Errorf("the error is at %q, want %q: %+v", d.path, tc.path, d)
	}
	switch {
	case tc.atApply && d.rpc != "ApplyResourceChange":
		t.Errorf("the error came from %s; a rule that depends on the cluster must fail the apply, not the plan: %+v", d.rpc, d)
	case tc.atApply:
		if !slices.ContainsFunc(rec.warningList(), func(w recordedDiag) bool {
			return w.rpc == "PlanResourceChange" && w.path == tc.path && w.summary == d.summary && strings.Contains(w.detail, shared.ApplyRefuses)
		}) {
			t.Errorf("the plan did not warn about it at %s: warnings %+v", tc.path, rec.warningList())
		}
	case d.rpc == "ApplyResourceChange":
		t.Errorf("the error came at apply; it must come at validate or plan time: %+v", d)
	}
	if !regexp.MustCompile(`^(`+tc.summary+`)$`).MatchString(d.summary) || strings.TrimSpace(d.detail) == "" {
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
	nodes, _, err := testNomad(t).Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("listing nodes: %v (%d nodes)", err, len(nodes))
	}
	return nodes[0].ID
}

// assertNothingInNomad fails t if Nomad holds anything of berth's whose
// name starts with prefix, in any namespace: a job, a node reservation's
// hold job, a host volume, a task's secret Variable, or a node
// reservation (or charge) in a ledger.
func assertNothingInNomad(t *testing.T, prefix string) {
	t.Helper()
	c := testNomad(t)
	all := &api.QueryOptions{Namespace: "*"}
	jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*", Prefix: prefix})
	if err != nil {
		t.Fatalf("listing jobs: %v", err)
	}
	for _, j := range jobs {
		t.Errorf("Nomad has job %q in namespace %q, left behind", j.ID, j.Namespace)
	}
	holds, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*", Prefix: hold.JobPrefix})
	if err != nil {
		t.Fatalf("listing hold jobs: %v", err)
	}
	for _, j := range holds {
		if strings.Contains(j.ID, "-"+prefix) {
			t.Errorf("Nomad has hold job %q in namespace %q, left behind", j.ID, j.Namespace)
		}
	}
	secrets, _, err := c.Variables().PrefixList("nomad/jobs/"+prefix, all)
	if err != nil {
		t.Fatalf("listing secret variables: %v", err)
	}
	for _, m := range secrets {
		t.Errorf("Nomad has variable %s in namespace %q, left behind", m.Path, m.Namespace)
	}
	vols, _, err := c.HostVolumes().List(nil, all)
	if err != nil {
		t.Fatalf("listing host volumes: %v", err)
	}
	for _, v := range vols {
		if strings.HasPrefix(v.Name, prefix) {
			t.Errorf("Nomad has host volume %q (%s), left behind", v.Name, v.ID)
		}
	}
	metas, _, err := c.Variables().PrefixList("berth/", all)
	if err != nil {
		t.Fatalf("listing variables: %v", err)
	}
	for _, m := range metas {
		v, _, err := c.Variables().Read(m.Path, &api.QueryOptions{Namespace: m.Namespace})
		if errors.Is(err, api.ErrVariablePathNotFound) {
			// Another test released the node's last reservation between
			// the list and this read: a ledger that is gone holds nothing.
			continue
		}
		if err != nil {
			t.Fatalf("reading variable %s: %v", m.Path, err)
		}
		for key := range v.Items {
			if strings.HasPrefix(key, prefix) {
				t.Errorf("Nomad variable %s holds %q, left behind", m.Path, key)
			}
		}
	}
}

// recordingServer passes every call to the provider and records the error
// diagnostics it returns, with their exact attribute paths.
type recordingServer struct {
	tfprotov6.ProviderServer
	rec *diagRecorder
}

func (s *recordingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateProviderConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateDataResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.rec.add("PlanResourceChange", resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.rec.add("ReadDataSource", resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.rec.add("ApplyResourceChange", resp.Diagnostics)
	}
	return resp, err
}

type recordedDiag struct{ rpc, summary, detail, path string }

// diagRecorder keeps the error diagnostics of a case. terraform may ask for
// the same validation more than once (it validates again while planning),
// and one mistake reported by two calls is still one error; but the same
// error twice in one answer is two errors on the user's screen.
type diagRecorder struct {
	mu       sync.Mutex
	count    map[recordedDiag]int // most times one answer held it; key without rpc
	all      []recordedDiag
	warnings []recordedDiag
}

func (r *diagRecorder) add(rpc string, diags []*tfprotov6.Diagnostic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == nil {
		r.count = map[recordedDiag]int{}
	}
	inCall := map[recordedDiag]int{}
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityWarning {
			r.warnings = append(r.warnings, recordedDiag{rpc: rpc, summary: d.Summary, detail: d.Detail, path: attrPathString(d.Attribute)})
		}
		if d == nil || d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		rd := recordedDiag{rpc: rpc, summary: d.Summary, detail: d.Detail, path: attrPathString(d.Attribute)}
		key := rd
		key.rpc = ""
		inCall[key]++
		if inCall[key] > r.count[key] {
			r.count[key] = inCall[key]
			r.all = append(r.all, rd)
		}
	}
}

func (r *diagRecorder) warningList() []recordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedDiag(nil), r.warnings...)
}

func (r *diagRecorder) errors() []recordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedDiag(nil), r.all...)
}

// attrPathString prints a protocol attribute path the way the framework
// prints its paths: services["a"].ports["http"].to, mounts[0], and a set
// element as {…}: constraints[{…}].value.
func attrPathString(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyValue:
			b.WriteString("[{…}]") // a set element, named by its whole value
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	return b.String()
}
