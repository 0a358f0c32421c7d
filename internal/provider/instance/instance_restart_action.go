package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewInstanceRestartAction builds berth_instance_restart: a rolling restart
// of an instance's running allocations, run from a plan (Terraform 1.14+).
// The declarative `restart_triggers` attribute does the same for older
// Terraform versions.
func NewInstanceRestartAction() action.Action {
	return &shared.JobAction{ActionBase: shared.NewActionBase("instance_restart"), Thing: "instance",
		Doc: "Restarts the running allocations of a `berth_instance` in place, one at a time, waiting for " +
			"each one's tasks to run again before the next (Terraform 1.14 and later; run it with `terraform apply " +
			"-invoke=action.berth_instance_restart.<name>` or from a resource's `action_trigger`). No new job version is " +
			"registered, so the instance's next plan is empty. On older Terraform versions, change the instance's " +
			"`restart_triggers` instead.",
		TimeoutDoc: "How long the whole restart may take",
		Run:        restartAllocations,
	}
}

func restartAllocations(ctx context.Context, data *shared.ProviderData, t shared.JobActionTarget, _ action.InvokeRequest, resp *action.InvokeResponse) {
	n, err := data.Nomad.RestartAllocationsReporting(ctx, t.Ns, t.Name, func(done, total int, alloc string) {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("restarted %s (%d of %d)", alloc, done, total)})
	})
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, fmt.Sprintf("Restart of %s/%s stopped after %d allocations", t.Ns, t.Name, n), err)
		return
	}
	tflog.Info(ctx, "Restarted instance", map[string]any{"job": t.Name, "namespace": t.Ns, "allocations": n})
	if n == 0 {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s/%s has no running allocation; nothing restarted", t.Ns, t.Name)})
	}
}
