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
