package instance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// nomadDiffAgrees is Nomad as the oracle of berth_instance's read-back
// drift, as a refresh plan check: the plan updates the instance exactly
// when Nomad's own diff (a dry run with diff = true, what `nomad job plan`
// prints) of the job berth would register, BuildJob of the planned
// instance at the job's current count, against the job Nomad holds,
// reports a change. On disagreement it names both sides' fields.
type nomadDiffAgrees struct {
	t    *testing.T
	addr string
}

func (o nomadDiffAgrees) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != o.addr {
			continue
		}
		if rc.Change.Actions.Create() || rc.Change.Actions.Delete() || rc.Change.Actions.Replace() {
			return // no job in Nomad yet, or one berth does not update
		}
		before, err := instanceSpecOf(ctx, rc.Change.Before)
		if err != nil {
			resp.Error = fmt.Errorf("reading the refreshed state: %w", err)
			return
		}
		after, err := instanceSpecOf(ctx, rc.Change.After)
		if err != nil {
			resp.Error = fmt.Errorf("reading the planned state: %w", err)
			return
		}
		nomad, err := nomadDiff(acctest.Nomad(o.t), after)
		if errors.Is(err, errNoJob) {
			// A completed batch job Nomad collected stays in state
			// without a plan until a change registers it anew (DESIGN,
			// Job types): Nomad would add the whole job either way.
			o.t.Logf("%s: Nomad holds no job %q; berth plans %v", o.addr, after.Name, rc.Change.Actions)
			return
		}
		if err != nil {
			resp.Error = err
			return
		}
		if after.Replicas == nil { // unmanaged: berth keeps Nomad's count
			before.Replicas = nil
		}
		berthUpdates := rc.Change.Actions.Update()
		if berthUpdates || len(nomad) > 0 {
			o.t.Logf("%s: berth's drift %q; Nomad's diff %q", o.addr, instance.Diff(before, after), nomad)
		}
		if berthUpdates != (len(nomad) > 0) {
			resp.Error = fmt.Errorf("berth and Nomad disagree on %s: berth plans %v (drift %q); Nomad's diff of the job berth would register: %q",
				o.addr, rc.Change.Actions, instance.Diff(before, after), nomad)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", o.addr)
}

// checkedByNomad adds nomadDiffAgrees to each step's plans: the one
// before its apply (when it updates an instance) and the refresh plan
// after it (for a plan-only step, its refresh plan); steps that plan no
// configuration (import, refresh) are left as they are.
func checkedByNomad(t *testing.T, steps ...resource.TestStep) []resource.TestStep {
	oracle := nomadDiffAgrees{t: t, addr: acctest.InstanceAddr}
	for i := range steps {
		if steps[i].Config == "" || steps[i].ImportState || steps[i].RefreshState {
			continue // no plan of a configuration
		}
		c := &steps[i].ConfigPlanChecks
		if !steps[i].PlanOnly {
			c.PreApply = append(slices.Clone(c.PreApply), oracle)
		}
		c.PostApplyPostRefresh = append(slices.Clone(c.PostApplyPostRefresh), oracle)
	}
	return steps
}

// instanceSpecOf is the instance a plan's JSON value describes, as the
// provider converts its state.
func instanceSpecOf(ctx context.Context, value any) (instance.Spec, error) {
	raw, err := json.Marshal(value)
	if err != nil {
		return instance.Spec{}, err
	}
	s := Schema(ctx)
	v, err := tftypes.ValueFromJSONWithOpts(raw, s.Type().TerraformType(ctx), tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
	if err != nil {
		return instance.Spec{}, err
	}
	var m instanceModel
	if d := (tfsdk.State{Schema: s, Raw: v}).Get(ctx, &m); d.HasError() {
		return instance.Spec{}, fmt.Errorf("%v", d)
	}
	spec, d, err := m.toSpec(ctx)
	if err == nil && d.HasError() {
		err = fmt.Errorf("%v", d)
	}
	return spec, err
}

var errNoJob = errors.New("no such job in Nomad")

// nomadDiff is Nomad's diff of BuildJob(spec) against the job it holds,
// one line per changed field; nil when Nomad sees no change.
func nomadDiff(c *api.Client, spec instance.Spec) ([]string, error) {
	live, _, err := c.Jobs().Info(spec.Name, &api.QueryOptions{Namespace: spec.Namespace})
	if ue := (api.UnexpectedResponseError{}); errors.As(err, &ue) && ue.StatusCode() == http.StatusNotFound {
		return nil, fmt.Errorf("%w %q", errNoJob, spec.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading job %q: %w", spec.Name, err)
	}
	count := 1
	if len(live.TaskGroups) > 0 && live.TaskGroups[0].Count != nil {
		count = *live.TaskGroups[0].Count
	}
	plan, _, err := c.Jobs().Plan(instance.BuildJob(spec, count), true, &api.WriteOptions{Namespace: spec.Namespace})
	if err != nil {
		return nil, fmt.Errorf("asking Nomad to plan job %q: %w", spec.Name, err)
	}
	var out []string
	if d := plan.Diff; d != nil && d.Type != "None" {
		diffFields(&out, "job", d.Fields, d.Objects)
		for _, g := range d.TaskGroups {
			if g.Type == "None" {
				continue
			}
			at := fmt.Sprintf("group %q", g.Name)
			diffFields(&out, at, g.Fields, g.Objects)
			for _, t := range g.Tasks {
				if t.Type != "None" {
					diffFields(&out, fmt.Sprintf("%s / task %q", at, t.Name), t.Fields, t.Objects)
				}
			}
		}
		if len(out) == 0 { // a change Nomad names by no field
			out = append(out, "job: "+d.Type)
		}
	}
	return out, nil
}

func diffFields(out *[]string, at string, fields []*api.FieldDiff, objects []*api.ObjectDiff) {
	for _, f := range fields {
		if f.Type != "None" {
			*out = append(*out, fmt.Sprintf("%s / %s: %q → %q", at, f.Name, f.Old, f.New))
		}
	}
	for _, o := range objects {
		if o.Type != "None" {
			diffFields(out, strings.Join([]string{at, o.Name}, " / "), o.Fields, o.Objects)
		}
	}
}
