package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccSchedulerSettings_changedAfterPlanRefused: the configuration is
// changed through Nomad's API between `terraform plan -out` and applying
// that plan. The apply is refused, naming what changed, and writes
// nothing; destroy then puts back what berth found at create.
func TestAccSchedulerSettings_changedAfterPlanRefused(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	agent, nomad := acctest.StartPrivateAgent(t, "berth-sched-cas")
	found := *schedulerConfigOf(t, nomad)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cli := acctest.NewTFCLI(t)
	cli.Init(ctx, providerAt(agent.Addr)+`
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm = "spread"
}
`)
	cli.MustApply(ctx, "create")
	cli.Write(providerAt(agent.Addr) + `
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm = "binpack"
}
`)
	if _, err := cli.TF.Plan(ctx, tfexec.Reattach(cli.Reattach), tfexec.Out("changed.tfplan")); err != nil {
		t.Fatalf("terraform plan: %v\n%s", err, cli.Out.Take())
	}
	cli.Out.Take()
	theirs := *schedulerConfigOf(t, nomad)
	theirs.MemoryOversubscriptionEnabled = true
	if _, _, err := nomad.Operator().SchedulerSetConfiguration(&theirs, nil); err != nil {
		t.Fatal(err)
	}
	err := cli.TF.Apply(ctx, tfexec.Reattach(cli.Reattach), tfexec.DirOrPlan("changed.tfplan"))
	out := cli.Out.Take()
	if err == nil {
		t.Fatalf("applying a plan made before the configuration changed in Nomad succeeded:\n%s", out)
	}
	diags := acctest.DiagnosticsOf(out + err.Error())
	for _, want := range []string{"check-and-set", "memory_oversubscription: false -> true", "Nothing was written"} {
		if !strings.Contains(diags, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, diags)
		}
	}
	if got := schedulerConfigOf(t, nomad); !sameScheduler(got, &theirs) {
		t.Errorf("the refused apply wrote the configuration: %+v, want %+v", *got, theirs)
	}
	if got := schedulerConfigOf(t, nomad).SchedulerAlgorithm; got != api.SchedulerAlgorithmSpread {
		t.Errorf("algorithm %q after the refused apply, want spread", got)
	}
	cli.Destroy(ctx)
	if got := schedulerConfigOf(t, nomad); !sameScheduler(got, &found) {
		t.Errorf("destroy left %+v, want what berth found at create %+v", *got, found)
	}
}

// applySavedPlanFails applies the plan saved as name, which must fail; it
// returns the diagnostics.
func applySavedPlanFails(ctx context.Context, t *testing.T, cli *acctest.TFCLI, name string) string {
	t.Helper()
	err := cli.TF.Apply(ctx, tfexec.Reattach(cli.Reattach), tfexec.DirOrPlan(name))
	out := cli.Out.Take()
	if err == nil {
		t.Fatalf("applying %s, made before the configuration changed in Nomad, succeeded:\n%s", name, out)
	}
	return acctest.DiagnosticsOf(out + err.Error())
}

// freeze sets reject_job_registration through Nomad's API, as an operator
// would during an incident, and returns what Nomad then holds.
func freeze(t *testing.T, nomad *api.Client) api.SchedulerConfiguration {
	t.Helper()
	theirs := *schedulerConfigOf(t, nomad)
	theirs.RejectJobRegistration = true
	if _, _, err := nomad.Operator().SchedulerSetConfiguration(&theirs, nil); err != nil {
		t.Fatal(err)
	}
	return theirs
}

// TestAccSchedulerSettings_changedAfterCreatePlanRefused: the plan of a
// create shows the configuration it takes over (found); an operator's
// freeze made between `terraform plan -out` and applying that plan fails
// the apply, naming the change, and Nomad keeps the freeze.
func TestAccSchedulerSettings_changedAfterCreatePlanRefused(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	nomad, cli := spreadSettingsOnPrivateAgent(ctx, t, "berth-sched-cas-create")
	if _, err := cli.TF.Plan(ctx, tfexec.Reattach(cli.Reattach), tfexec.Out("create.tfplan")); err != nil {
		t.Fatalf("terraform plan: %v\n%s", err, cli.Out.Take())
	}
	cli.Out.Take()
	plan, err := cli.TF.ShowPlanFile(ctx, "create.tfplan", tfexec.Reattach(cli.Reattach))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.ResourceChanges) != 1 || !plan.ResourceChanges[0].Change.Actions.Create() {
		t.Fatalf("the plan does not create the settings: %+v", plan.ResourceChanges)
	}
	after, _ := plan.ResourceChanges[0].Change.After.(map[string]any)
	found, _ := after["found"].(map[string]any)
	if found["reject_job_registration"] != false || found["scheduler_algorithm"] != "binpack" {
		t.Fatalf("the plan's found is %v, want Nomad's configuration at plan (binpack, registration accepted)", after["found"])
	}
	theirs := freeze(t, nomad)
	// Terraform plans the create again at apply; the configuration berth
	// would take over now differs from the plan's found, and Terraform
	// stops before the provider's apply, naming the attribute.
	diags := applySavedPlanFails(ctx, t, cli, "create.tfplan")
	for _, want := range []string{"found.reject_job_registration", "cty.False, but now cty.True"} {
		if !strings.Contains(strings.Join(strings.Fields(diags), " "), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, diags)
		}
	}
	if got := schedulerConfigOf(t, nomad); !sameScheduler(got, &theirs) {
		t.Errorf("the refused apply wrote the configuration: %+v, want %+v", *got, theirs)
	}
	if st := cli.State(ctx); len(st) != 0 {
		t.Errorf("the refused create left state: %v", st)
	}
}

// TestAccSchedulerSettings_changedAfterDestroyPlanRefused: an operator's
// freeze made between `terraform plan -destroy -out` and applying that
// plan refuses the destroy, naming the change, and Nomad keeps the freeze
// (destroy would otherwise put back the configuration found at create).
func TestAccSchedulerSettings_changedAfterDestroyPlanRefused(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	nomad, cli := spreadSettingsOnPrivateAgent(ctx, t, "berth-sched-cas-destroy")
	cli.MustApply(ctx, "create")
	if _, err := cli.TF.Plan(ctx, tfexec.Reattach(cli.Reattach), tfexec.Destroy(true), tfexec.Out("destroy.tfplan")); err != nil {
		t.Fatalf("terraform plan -destroy: %v\n%s", err, cli.Out.Take())
	}
	cli.Out.Take()
	theirs := freeze(t, nomad)
	diags := applySavedPlanFails(ctx, t, cli, "destroy.tfplan")
	for _, want := range []string{"changed in Nomad after the plan", "reject_job_registration: false -> true", "Nothing was written"} {
		if !strings.Contains(diags, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, diags)
		}
	}
	if got := schedulerConfigOf(t, nomad); !sameScheduler(got, &theirs) {
		t.Errorf("the refused destroy wrote the configuration: %+v, want %+v", *got, theirs)
	}
	if st := cli.State(ctx); st[schedulerAddr] == nil {
		t.Errorf("the refused destroy removed %s from state", schedulerAddr)
	}
}

// spreadSettingsOnPrivateAgent starts an agent of the test's own (its
// scheduler configuration is the cluster's, shared by no other test) and a
// working directory whose configuration sets scheduler_algorithm = "spread".
func spreadSettingsOnPrivateAgent(ctx context.Context, t *testing.T, name string) (*api.Client, *acctest.TFCLI) {
	t.Helper()
	agent, nomad := acctest.StartPrivateAgent(t, name)
	cli := acctest.NewTFCLI(t)
	cli.Init(ctx, providerAt(agent.Addr)+`
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm = "spread"
}
`)
	return nomad, cli
}
