package instance

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// planWarnings keeps the warnings the provider's plans returned.
type planWarnings struct {
	tfprotov6.ProviderServer
	mu   sync.Mutex
	seen []string // summary + "\n" + detail
}

func (s *planWarnings) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.mu.Lock()
		for _, d := range resp.Diagnostics {
			if d != nil && d.Severity == tfprotov6.DiagnosticSeverityWarning {
				s.seen = append(s.seen, d.Summary+"\n"+d.Detail)
			}
		}
		s.mu.Unlock()
	}
	return resp, err
}

func (s *planWarnings) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// unmanagedSettings sets on job what berth_instance does not model
// (leader, group meta, disconnect, a workload identity, all_at_once), as
// `nomad job run` would, and returns the words each is refused with, in
// the order berth lists them.
func unmanagedSettings(job *api.Job) []string {
	g := job.TaskGroups[0]
	job.AllAtOnce = acctest.Ptr(true)
	g.Meta = map[string]string{"team": "payments"}
	g.Disconnect = &api.DisconnectStrategy{LostAfter: acctest.Ptr(time.Hour)}
	t := g.Tasks[0]
	t.Leader = true
	t.Identity = &api.WorkloadIdentity{Env: true}
	grp := fmt.Sprintf("group %q", *g.Name)
	return []string{
		"job sets all_at_once",
		fmt.Sprintf("%s task %q sets leader", grp, t.Name),
		fmt.Sprintf("%s task %q sets identity", grp, t.Name),
		grp + " sets disconnect",
		grp + " sets meta",
	}
}

// mentionsAll is a regexp matching text that names every setting.
func mentionsAll(settings []string) *regexp.Regexp {
	parts := make([]string, len(settings))
	for i, s := range settings {
		parts[i] = strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)cannot be represented.*` + strings.Join(parts, ".*"))
}

// TestAccInstance_importRefusesUnmanagedSettings: a job registered through
// Nomad's HTTP API with leader, group meta, a disconnect block, a
// workload identity block and all_at_once is refused on import, naming
// each setting, and stays as it was in Nomad.
func TestAccInstance_importRefusesUnmanagedSettings(t *testing.T) {
	name := startInstanceTest(t)
	job := &api.Job{ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), TaskGroups: []*api.TaskGroup{{
		Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
		Tasks: []*api.Task{{Name: "app", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
			Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(32)}}},
	}}}
	settings := unmanagedSettings(job)
	c := acctest.Nomad(t)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("registering %s: %v", name, err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(name, true, nil) })
	before, _, err := c.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:        acctest.InstanceConfig{Name: name}.String(),
			ResourceName:  acctest.InstanceAddr,
			ImportState:   true,
			ImportStateId: name,
			ExpectError:   mentionsAll(settings),
		}},
	})
	after, _, err := c.Jobs().Info(name, nil)
	if err != nil || *after.JobModifyIndex != *before.JobModifyIndex || !*after.AllAtOnce || !after.TaskGroups[0].Tasks[0].Leader {
		t.Fatalf("the refused import changed the job in Nomad (err %v)", err)
	}
}

// TestAccInstance_unmanagedSettingsAddedInNomad: the same settings added
// through the API to a job berth manages show in the next plan (a
// warning naming each, and an update), the apply removes them from
// Nomad, and the plan after that is empty.
func TestAccInstance_unmanagedSettingsAddedInNomad(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1"}.String()
	warnings := &planWarnings{}
	var settings []string
	addInNomad := acctest.MutateJob(t, name, func(j *api.Job) { settings = unmanagedSettings(j) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := acctest.NewServer()
				warnings.ProviderServer = s
				return warnings, err
			},
		},
		CheckDestroy: acctest.CheckInstanceDestroyed(t, name),
		Steps: checkedByNomad(t, []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { addInNomad(); warnings.take() },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(acctest.InstanceAddr, tfjsonpath.New("job_modify_index")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						got := strings.Join(warnings.take(), "\n\n")
						for _, s := range settings {
							if !strings.Contains(got, s) {
								return fmt.Errorf("the plan's warnings do not name %q:\n%s", s, got)
							}
						}
						if !strings.Contains(got, "removes them from Nomad") {
							return fmt.Errorf("the plan's warnings do not say the apply removes them:\n%s", got)
						}
						return nil
					},
					acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
						g := job.TaskGroups[0]
						if deref(job.AllAtOnce) || len(g.Meta) > 0 || g.Disconnect != nil || g.Tasks[0].Leader ||
							g.Tasks[0].Identity == nil || g.Tasks[0].Identity.Env {
							return fmt.Errorf("the apply left unmanaged settings in Nomad: all_at_once %v meta %v disconnect %+v leader %v identity %+v",
								deref(job.AllAtOnce), g.Meta, g.Disconnect, g.Tasks[0].Leader, g.Tasks[0].Identity)
						}
						return nil
					}),
				),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectNoChanges{},
				}},
			},
		}...),
	})
}
