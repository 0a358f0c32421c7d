package acctest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/hold"
)

// AssertNothingInNomad fails t if Nomad holds anything of berth's whose
// name starts with prefix, in any namespace: a job, a node reservation's
// hold job, a host volume, a task's secret Variable, or a node
// reservation (or charge) in a ledger.
func AssertNothingInNomad(t *testing.T, prefix string) {
	t.Helper()
	c := Nomad(t)
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

// RecordingServer passes every call to the provider and records the error
// diagnostics it returns, with their exact attribute paths.
type RecordingServer struct {
	tfprotov6.ProviderServer
	Rec *DiagRecorder
}

func (s *RecordingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.Rec.add("ValidateProviderConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		s.Rec.add("ValidateResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		s.Rec.add("ValidateDataResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateEphemeralResourceConfig(ctx, req)
	if resp != nil {
		s.Rec.add("ValidateEphemeralResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.Rec.add("PlanResourceChange", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.Rec.add("ReadDataSource", resp.Diagnostics)
	}
	return resp, err
}

func (s *RecordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.Rec.add("ApplyResourceChange", resp.Diagnostics)
	}
	return resp, err
}

type RecordedDiag struct{ Rpc, Summary, Detail, Path string }

// DiagRecorder keeps the error diagnostics of a case. terraform may ask for
// the same validation more than once (it validates again while planning),
// and one mistake reported by two calls is still one error; but the same
// error twice in one answer is two errors on the user's screen.
type DiagRecorder struct {
	mu       sync.Mutex
	count    map[RecordedDiag]int // most times one answer held it; key without rpc
	all      []RecordedDiag
	warnings []RecordedDiag
}

func (r *DiagRecorder) add(rpc string, diags []*tfprotov6.Diagnostic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == nil {
		r.count = map[RecordedDiag]int{}
	}
	inCall := map[RecordedDiag]int{}
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityWarning {
			r.warnings = append(r.warnings, RecordedDiag{Rpc: rpc, Summary: d.Summary, Detail: d.Detail, Path: AttrPathString(d.Attribute)})
		}
		if d == nil || d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		rd := RecordedDiag{Rpc: rpc, Summary: d.Summary, Detail: d.Detail, Path: AttrPathString(d.Attribute)}
		key := rd
		key.Rpc = ""
		inCall[key]++
		if inCall[key] > r.count[key] {
			r.count[key] = inCall[key]
			r.all = append(r.all, rd)
		}
	}
}

func (r *DiagRecorder) WarningList() []RecordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedDiag(nil), r.warnings...)
}

func (r *DiagRecorder) Errors() []RecordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedDiag(nil), r.all...)
}

// AttrPathString prints a protocol attribute path the way the framework
// prints its paths: services["a"].ports["http"].to, mounts[0], and a set
// element as {…}: constraints[{…}].value.
func AttrPathString(p *tftypes.AttributePath) string {
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

// Reset forgets what the recorder saw, so a step can be checked alone.
func (r *DiagRecorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count, r.all, r.warnings = nil, nil, nil
}
