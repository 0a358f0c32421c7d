package job

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// jobPlans keeps, for each berth_job plan the provider answered, its
// jobspec and the warnings about a jobspec that changes on every apply.
type jobPlans struct {
	tfprotov6.ProviderServer
	mu    sync.Mutex
	plans []jobPlan
}

type jobPlan struct {
	jobspec  string
	unstable []*tfprotov6.Diagnostic
	readBack *tfprotov6.Diagnostic // an apply's warning that the job reads back differently
}

func (s *jobPlans) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp == nil || req.TypeName != "berth_job" {
		return resp, err
	}
	p := jobPlan{jobspec: proposedJobspec(ctx, req)}
	for _, d := range resp.Diagnostics {
		if d != nil && d.Summary == unstableSummary {
			p.unstable = append(p.unstable, d)
		}
	}
	s.mu.Lock()
	s.plans = append(s.plans, p)
	s.mu.Unlock()
	return resp, err
}

// proposedJobspec is the jobspec of a plan's proposed state; "" for a
// destroy.
func proposedJobspec(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) string {
	if req.ProposedNewState == nil {
		return ""
	}
	v, err := req.ProposedNewState.Unmarshal(jobSchema(ctx).Type().TerraformType(ctx))
	var attrs map[string]tftypes.Value
	if err != nil || v.IsNull() || v.As(&attrs) != nil {
		return ""
	}
	var src string
	_ = attrs["jobspec"].As(&src)
	return src
}

// ApplyResourceChange keeps the apply's read-back warning as a plan of
// its own, to be refused: the fields a jobspec changes on every parse are
// not Nomad normalizing them.
func (s *jobPlans) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil && req.TypeName == "berth_job" {
		for _, d := range resp.Diagnostics {
			if d != nil && strings.Contains(d.Summary, "reads back differently") {
				s.mu.Lock()
				s.plans = append(s.plans, jobPlan{readBack: d})
				s.mu.Unlock()
			}
		}
	}
	return resp, err
}

func (s *jobPlans) take() []jobPlan {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.plans
	s.plans = nil
	return out
}

// expectUnstableWarnings checks the plans answered since the last take:
// each plan of a jobspec holding marker warns exactly once, at `jobspec`,
// naming want and not steady; no other plan warns, and no apply warns that
// the job reads back differently.
func (s *jobPlans) expectUnstableWarnings(marker, want, steady string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		warned := 0
		for _, p := range s.take() {
			if p.readBack != nil {
				return fmt.Errorf("the apply warned %q:\n%s", p.readBack.Summary, p.readBack.Detail)
			}
			if p.jobspec == "" || !strings.Contains(p.jobspec, marker) {
				if len(p.unstable) > 0 {
					return fmt.Errorf("a deterministic jobspec's plan warned: %s", p.unstable[0].Detail)
				}
				continue
			}
			if len(p.unstable) != 1 {
				return fmt.Errorf("a plan of the non-deterministic jobspec holds %d warnings %q, want exactly one", len(p.unstable), unstableSummary)
			}
			d := p.unstable[0]
			if at := acctest.AttrPathString(d.Attribute); at != "jobspec" || !strings.Contains(d.Detail, "\n  - "+want+"\n") ||
				strings.Contains(d.Detail, steady) || !strings.Contains(d.Detail, "uuidv4()") {
				return fmt.Errorf("warning at %q does not name %s alone, or not why:\n%s", at, want, d.Detail)
			}
			warned++
		}
		if warned == 0 {
			return fmt.Errorf("no plan of the non-deterministic jobspec was seen")
		}
		return nil
	}
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestAccJob_nonDeterministicJobspecWarns: a jobspec with uuidv4() in its
// meta plans with one warning naming the meta key (and not the key that
// stays put), beside a deterministic job that plans without one; the
// apply registers a UUID; the next plan warns again and updates the job,
// whose next apply registers another UUID. The jobs are batch /bin/true,
// done in a moment.
func TestAccJob_nonDeterministicJobspecWarns(t *testing.T) {
	acctest.PreCheck(t)
	name, steady := "berth-acc-job-uuid-"+acctest.RandomHex(3), "berth-acc-job-steady-"+acctest.RandomHex(3)
	jobspec := func(id, meta string) string {
		return fmt.Sprintf(`
    job %q {
      type = "batch"
      meta {
        %s
        team = "payments"
      }
      group "g" {
        task "t" {
          driver = "raw_exec"
          config { command = "/bin/true" }
          resources {
            cpu    = 20
            memory = 16
          }
        }
      }
    }`, id, meta)
	}
	config := fmt.Sprintf(`
resource "berth_job" "t" {
  jobspec = <<-EOT
%s
  EOT
}
resource "berth_job" "steady" {
  jobspec = <<-EOT
%s
  EOT
}
`, jobspec(name, "run_id = uuidv4()"), jobspec(steady, `run_id = "fixed"`))
	plans := &jobPlans{}
	runIDs := []string{}
	registered := acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		id := job.Meta["run_id"]
		if !uuidPattern.MatchString(id) || job.Meta["team"] != "payments" {
			return fmt.Errorf("Nomad holds meta %v, want a UUID run_id and team", job.Meta)
		}
		if slices.Contains(runIDs, id) {
			return fmt.Errorf("run_id %s was registered before: the apply did not parse the jobspec again", id)
		}
		runIDs = append(runIDs, id)
		return nil
	})
	check := resource.ComposeAggregateTestCheckFunc(plans.expectUnstableWarnings("uuidv4()", "meta.run_id", "meta.team"), registered)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := acctest.NewServer()
				plans.ProviderServer = s
				return plans, err
			},
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionCreate),
				}},
				Check:              check,
				ExpectNonEmptyPlan: true, // the refresh finds the next UUID
			},
			{
				PreConfig: func() { plans.take() },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_job.steady", plancheck.ResourceActionNoop),
					expectDriftBefore{"meta: "},
				}},
				Check:              check,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// The drift right after a registration leaves out what the jobspec itself
// changes on every parse: a whole meta map holding an unstable key, but
// not another field.
func TestStableDrift(t *testing.T) {
	acctest.PreCheck(t) // the cluster parses the jobspec
	m := &jobModel{Jobspec: types.StringValue(`job "j" {
  meta { run_id = uuidv4() }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`), Format: types.StringValue("hcl2"), Variables: types.MapNull(types.StringType)}
	drift := []attr.Value{
		types.StringValue(`meta: {"run_id":"a"} → {"run_id":"b"}`),
		types.StringValue(`group "g" / task "t" / driver: "docker" → "raw_exec"`),
		types.StringValue(`metadata: 1 → 2`),
	}
	var diags diag.Diagnostics
	got := stableDrift(context.Background(), testOracle(t), m, drift, &diags)
	if diags.HasError() || len(got) != 2 || got[0] != drift[1] || got[1] != drift[2] {
		t.Fatalf("stable drift %v (%v), want the driver and metadata lines", got, diags)
	}
	if f := driftField(`group "a: b" / meta: {"x": 1} → {}`); f != `group "a: b" / meta` {
		t.Fatalf("driftField read %q", f)
	}
}
