package nomadclient

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// Nomad is the oracle for berth_job's drift: its job plan endpoint with
// diff compares a submitted job with the one it holds after its own
// canonicalization and admission (defaults, implicit identities and
// constraints, fields it no longer keeps), exactly what `nomad job plan`
// prints.
//
// "No change" is a diff that names no changed field and no block added or
// removed: every field is "None", and an object marked "Edited" counts
// only by the changed fields or objects inside it. Nomad leaves its
// bookkeeping (indexes, version, status, submit time, token) out of the
// diff's fields, but still marks the object that holds some of it
// "Edited" with nothing inside: a group's scaling policy gets a new ID
// and indexes at every submission, so every plan of a job with a scaling
// block says `Scaling` edited, with no field. That, and the per-group
// scheduler counts (Updates, not part of the diff), are all that is
// discounted.

// PlanChanges asks Nomad what registering job would change in the job it
// holds under job's ID (in job's namespace), and returns one path per
// changed field, object or block as Nomad's diff names it (DiffPaths);
// empty when nothing would change. Nothing is written.
func (c *Client) PlanChanges(ctx context.Context, job *api.Job, extra jobspec.Extras) ([]string, error) {
	ns := deref(job.Namespace)
	resp, err := readRetry(ctx, c, "plan job with diff", func(ctx context.Context) (*api.JobPlanResponse, error) {
		return c.sendPlan(ctx, job, extra, true)
	})
	if err != nil {
		return nil, fmt.Errorf("asking Nomad's plan for the diff of job %q in namespace %q: %w", deref(job.ID), ns, err)
	}
	return DiffPaths(resp.Diff), nil
}

// ConfirmedDrift is where j differs from what s sets (jobspec.Drift),
// confirmed by Nomad: when berth's comparison finds a difference, one plan
// request with diff asks Nomad whether registering s would change the job
// at all, and when Nomad says it would not, there is no drift (a setting
// Nomad moves, fills in or no longer keeps, which berth's comparison does
// not follow yet; logged so it can be). A job that reads back unchanged,
// the usual refresh, costs no request. Nomad's answer only ever removes
// drift: when the plan cannot be asked (a token without submit-job, say),
// berth's comparison stands.
func (c *Client) ConfirmedDrift(ctx context.Context, j *Job, s jobspec.Spec) ([]string, error) {
	p := c.parser(ctx, deref(j.job.Namespace))
	drift, err := j.JobspecDrift(s, p)
	if err != nil || len(drift) == 0 {
		return drift, err
	}
	want, extra, err := jobspec.Parse(s, p)
	if err != nil {
		return nil, err
	}
	changes, planErr := c.PlanChanges(ctx, asSubmittedOver(want, j.job), extra)
	switch {
	case planErr != nil: // berth's comparison stands
		tflog.Debug(ctx, "Could not confirm the job's drift with Nomad's plan; reporting berth's comparison",
			map[string]any{"job": j.ID(), "error": planErr.Error()})
	case len(changes) == 0:
		tflog.Info(ctx, "berth's comparison found differences Nomad's own diff does not; not reported as drift",
			map[string]any{"job": j.ID(), "fields": strings.Join(drift, "; ")})
		drift = nil
	}
	return drift, nil
}

// asSubmittedOver is want as berth would register it over live: in live's
// namespace when the jobspec names none, with the job-level constraints
// live has that want lacks (a reservation's pin; berth compares
// constraints as a set, so these are not drift either).
func asSubmittedOver(want, live *api.Job) *api.Job {
	j := *want
	if j.Namespace == nil || *j.Namespace == "" {
		j.Namespace = live.Namespace
	}
	j.Constraints = slices.Clone(want.Constraints)
	for _, c := range live.Constraints {
		if !slices.ContainsFunc(j.Constraints, func(w *api.Constraint) bool { return reflect.DeepEqual(w, c) }) {
			j.Constraints = append(j.Constraints, c)
		}
	}
	return &j
}

// DiffPaths flattens Nomad's job diff into one path per change, as Nomad
// names it: `group "web" / task "app" / Resources.CPU`, `Meta[owner]`,
// `group "web" / Count`; a block added or removed whole is one path
// (`group "web" / task "app" / Vault`). Empty when every node is "None".
func DiffPaths(d *api.JobDiff) []string {
	var out []string
	if d == nil || d.Type == "None" && len(d.Fields) == 0 && len(d.Objects) == 0 && len(d.TaskGroups) == 0 {
		return out
	}
	diffFields(&out, "", d.Fields)
	diffObjects(&out, "", d.Objects)
	for _, g := range d.TaskGroups {
		at := fmt.Sprintf("group %q / ", g.Name)
		if g.Type == "Added" || g.Type == "Deleted" {
			out = append(out, strings.TrimSuffix(at, " / ")+" ("+strings.ToLower(g.Type)+")")
			continue
		}
		diffFields(&out, at, g.Fields)
		diffObjects(&out, at, g.Objects)
		for _, t := range g.Tasks {
			tat := fmt.Sprintf("%stask %q / ", at, t.Name)
			if t.Type == "Added" || t.Type == "Deleted" {
				out = append(out, strings.TrimSuffix(tat, " / ")+" ("+strings.ToLower(t.Type)+")")
				continue
			}
			diffFields(&out, tat, t.Fields)
			diffObjects(&out, tat, t.Objects)
		}
	}
	return out
}

func diffFields(out *[]string, at string, fields []*api.FieldDiff) {
	for _, f := range fields {
		if f.Type != "None" {
			*out = append(*out, at+f.Name)
		}
	}
}

func diffObjects(out *[]string, at string, objects []*api.ObjectDiff) {
	for _, o := range objects {
		if o.Type == "None" {
			continue
		}
		n := len(*out)
		diffFields(out, at+o.Name+".", o.Fields)
		diffObjects(out, at+o.Name+".", o.Objects)
		if len(*out) == n && o.Type != "Edited" {
			*out = append(*out, at+o.Name) // added or deleted as a whole
		}
	}
}
