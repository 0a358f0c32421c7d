package workflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// fakeJobNomad stands in for Nomad behind the jobspec workflow.
type fakeJobNomad struct {
	*fakeLedger
	fail map[string]error
	job  *nomadclient.Job
	// rollout is what the rollout wait returns; nil: a successful d1.
	rollout *nomadclient.Deployment
	cas     []string
}

func (f *fakeJobNomad) step(s string) error {
	f.steps = append(f.steps, s)
	return f.fail[s]
}

func (f *fakeJobNomad) GetJob(context.Context, string, string) (*nomadclient.Job, error) {
	return f.job, f.step("get-job")
}

// ConfirmedDrift is berth's comparison alone: the fake has no plan to ask.
func (f *fakeJobNomad) ConfirmedDrift(_ context.Context, j *nomadclient.Job, s jobspec.Spec) ([]string, error) {
	return j.JobspecDrift(s, nil) // the tests' jobspecs are JSON
}

func (f *fakeJobNomad) RegisterJobspec(_ context.Context, _ jobspec.Spec, _, pin string, index uint64) (*nomadclient.RegisterResult, error) {
	step := fmt.Sprintf("register @%d", index)
	if pin != "" {
		step += " pin=" + pin
	}
	if err := f.step(step); err != nil {
		return nil, err
	}
	return &nomadclient.RegisterResult{EvalID: "e1", JobModifyIndex: index + 3}, nil
}

func (f *fakeJobNomad) RemoveJob(_ context.Context, _, _ string, r nomadclient.Removal) error {
	return f.step(fmt.Sprintf("remove purge=%t", r.Purge))
}

func (f *fakeJobNomad) StopJob(_ context.Context, _, _ string, purge bool) error {
	return f.step(fmt.Sprintf("stop purge=%t", purge))
}

// PutSecretEnv writes at index 100; cas records each check-and-set index.
func (f *fakeJobNomad) PutSecretEnv(_ context.Context, _, path string, _ map[string]string, index uint64) (uint64, error) {
	f.cas = append(f.cas, fmt.Sprintf("put %d", index))
	return 100, f.step("put " + path)
}

func (f *fakeJobNomad) DeleteSecretEnv(_ context.Context, _, path string, index uint64) error {
	f.cas = append(f.cas, fmt.Sprintf("delete %d", index))
	return f.step("delete " + path)
}

func (f *fakeJobNomad) WaitAllocationsStopped(context.Context, string, string) error {
	return f.step("wait-stopped")
}

func (f *fakeJobNomad) WaitBatchComplete(context.Context, string, string, string) error {
	return f.step("wait-batch")
}

func (f *fakeJobNomad) WaitSystemRunning(context.Context, string, string, string) error {
	return f.step("wait-system")
}

func (f *fakeJobNomad) WaitForPlacement(context.Context, string, string, string) (*nomadclient.Deployment, error) {
	return nil, f.step("wait-placement")
}

func (f *fakeJobNomad) WaitForRollout(context.Context, string, string, string) (*nomadclient.Deployment, error) {
	if f.rollout != nil {
		return f.rollout, f.step("wait-rollout")
	}
	return &nomadclient.Deployment{ID: "d1", Status: "successful"}, f.step("wait-rollout")
}

// TestJobWrite_forgottenDeployment: a deployment Nomad left running once
// the rollout was done ends the apply with a warning.
func TestJobWrite_forgottenDeployment(t *testing.T) {
	// JSON, which berth reads itself: HCL2 is the cluster's to parse.
	spec := jobspec.Spec{Source: `{"ID": "web", "Name": "web", "TaskGroups": [{"Name": "app",
  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}`}
	sum, err := jobspec.Describe(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeJobNomad{fakeLedger: &fakeLedger{}, rollout: &nomadclient.Deployment{ID: "d1", Status: "running", Forgotten: forgottenNote}}
	out, err := NewJobs(f, "berth").Create(context.Background(), JobWrite{Spec: spec, Job: sum, Namespace: "default", Wait: true})
	if err != nil || out.RolloutErr != nil {
		t.Fatalf("Create = %v, rollout %v", err, out.RolloutErr)
	}
	checkForgottenWarning(t, out.Deployment, out.Warnings)
}

func i64(n int64) *int64 { return &n }

// testNode is testReservation's node.
const testNode = "0b1c2d3e-0000-4000-8000-000000000001"

func TestJobWrites(t *testing.T) {
	const varPath = "nomad/jobs/shop"
	refused := nomadAnswers(t, http.StatusBadRequest, "group web: invalid")
	conflict := nomadAnswers(t, http.StatusBadRequest, "Enforcing job modify index 0: job already exists")
	spec := jobspec.Spec{Source: `{"ID": "shop", "Name": "shop", "TaskGroups": [{"Name": "web",
  "Tasks": [{"Name": "app", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}, "Resources": {"CPU": 20}}]}]}`}
	sum, err := jobspec.Describe(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	write := func(typ string, mod func(*JobWrite)) JobWrite {
		in := JobWrite{Spec: spec, Job: sum, Namespace: "default", Wait: true}
		in.Job.Type = typ
		if mod != nil {
			mod(&in)
		}
		return in
	}
	withSecrets := func(in *JobWrite) { in.SecretsVersion, in.Secrets = i64(1), map[string]string{"password": "hunter22"} }
	live := func(index uint64, cpu int) *nomadclient.Job {
		t.Helper()
		s := spec
		s.Source = fmt.Sprintf(`{"ID": "shop", "Name": "shop", "TaskGroups": [{"Name": "web",
  "Tasks": [{"Name": "app", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}, "Resources": {"CPU": %d}}]}]}`, cpu)
		j, err := nomadclient.JobspecJob(s, index)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	cases := map[string]struct {
		nomad  fakeJobNomad
		update bool
		in     JobWrite
		want   wantRun
	}{
		"service: registered, rollout followed": {in: write("service", nil),
			want: wantRun{steps: []string{"register @0", "wait-rollout"}}},
		"batch waits for completion": {in: write("batch", nil), want: wantRun{steps: []string{"register @0", "wait-batch"}}},
		"sysbatch too":               {in: write("sysbatch", nil), want: wantRun{steps: []string{"register @0", "wait-batch"}}},
		"system: every node":         {in: write("system", nil), want: wantRun{steps: []string{"register @0", "wait-system"}}},
		"periodic: only registered":  {in: write("batch", func(in *JobWrite) { in.Job.Periodic = true }), want: wantRun{steps: []string{"register @0"}}},
		"manual health: placement":   {in: write("service", func(in *JobWrite) { in.Job.ManualHealth = true }), want: wantRun{steps: []string{"register @0", "wait-placement"}}},
		"no wait":                    {in: write("service", func(in *JobWrite) { in.Wait = false }), want: wantRun{steps: []string{"register @0"}}},
		"name taken":                 {in: write("service", nil), nomad: fakeJobNomad{fail: map[string]error{"register @0": conflict}}, want: wantRun{steps: []string{"register @0"}, err: "*workflow.JobExistsError"}},
		"refused":                    {in: write("service", nil), nomad: fakeJobNomad{fail: map[string]error{"register @0": refused}}, want: wantRun{steps: []string{"register @0"}, err: "*workflow.WriteError"}},
		"secrets: name checked, written first": {in: write("service", withSecrets),
			want: wantRun{steps: []string{"get-job", "put " + varPath, "register @0", "wait-rollout"}}},
		"secrets for a name taken: nothing written": {in: write("service", withSecrets), nomad: fakeJobNomad{job: live(5, 20)},
			want: wantRun{steps: []string{"get-job"}, err: "*workflow.JobExistsError"}},
		"secrets, refused: the Variable deleted": {in: write("service", withSecrets), nomad: fakeJobNomad{fail: map[string]error{"register @0": refused}},
			want: wantRun{steps: []string{"get-job", "put " + varPath, "register @0", "delete " + varPath}, err: "*workflow.WriteError"}},
		"secrets, Variable write fails: no job": {in: write("service", withSecrets), nomad: fakeJobNomad{fail: map[string]error{"put " + varPath: errNomad}},
			want: wantRun{steps: []string{"get-job", "put " + varPath}, err: "*workflow.SecretError"}},
		"update at the index read": {update: true, in: write("service", func(in *JobWrite) { in.Index = 5 }), nomad: fakeJobNomad{job: live(5, 20)},
			want: wantRun{steps: []string{"get-job", "register @5", "wait-rollout"}}},
		"update over the drift the plan showed": {update: true,
			in: write("service", func(in *JobWrite) {
				in.Index = 5
				in.Drift = []string{`group "web" / task "app" / resources.cpu: 30 → 20`}
			}),
			nomad: fakeJobNomad{job: live(7, 30)}, want: wantRun{steps: []string{"get-job", "register @7", "wait-rollout"}}},
		"changed again after the plan: refused": {update: true, in: write("service", func(in *JobWrite) { in.Index = 5 }),
			nomad: fakeJobNomad{job: live(7, 40)}, want: wantRun{steps: []string{"get-job"}, err: "*workflow.JobChangedError"}},
		"into a node reservation: charged, then pinned": {in: write("service", func(in *JobWrite) { in.Reservation = testReservation }),
			want: wantRun{steps: []string{"get-job", "charge", "sync", "register @0 pin=" + testNode, "wait-rollout"}}},
		"charge refused: nothing registered": {in: write("service", func(in *JobWrite) { in.Reservation = testReservation }),
			nomad: fakeJobNomad{fakeLedger: &fakeLedger{chargeErr: errNomad}},
			want:  wantRun{steps: []string{"get-job", "charge"}, err: "*workflow.ChargeError"}},
		"refused: the charge released": {in: write("service", func(in *JobWrite) { in.Reservation = testReservation }),
			nomad: fakeJobNomad{fail: map[string]error{"register @0 pin=" + testNode: refused}},
			want:  wantRun{steps: []string{"get-job", "charge", "sync", "register @0 pin=" + testNode, "uncharge", "sync"}, err: "*workflow.WriteError"}},
		"update: a new charge first, restored on refusal": {update: true,
			in: write("service", func(in *JobWrite) {
				in.Reservation, in.Index, in.HadCharge = testReservation, 5, in.Job.Charge
				in.Job.Charge.CPU += 10
			}),
			nomad: fakeJobNomad{job: live(5, 20), fail: map[string]error{"register @5 pin=" + testNode: refused}},
			want:  wantRun{steps: []string{"get-job", "charge", "sync", "register @5 pin=" + testNode, "charge", "sync"}, err: "*workflow.WriteError"}},
		"update: the same charge is not written again": {update: true,
			in:    write("service", func(in *JobWrite) { in.Reservation, in.Index, in.HadCharge = testReservation, 5, in.Job.Charge }),
			nomad: fakeJobNomad{job: live(5, 20)},
			want:  wantRun{steps: []string{"get-job", "register @5 pin=" + testNode, "wait-rollout"}}},
		"update of a job gone": {update: true, in: write("service", nil), want: wantRun{steps: []string{"get-job"}, err: "*workflow.JobGoneError"}},
		"secrets rotated before the registration": {update: true,
			in:    write("service", func(in *JobWrite) { withSecrets(in); in.SecretsVersion, in.HadVersion, in.Index = i64(2), i64(1), 5 }),
			nomad: fakeJobNomad{job: live(5, 20)}, want: wantRun{steps: []string{"get-job", "put " + varPath, "register @5", "wait-rollout"}}},
		"secrets kept: not written again": {update: true,
			in:    write("service", func(in *JobWrite) { withSecrets(in); in.HadVersion, in.Index = i64(1), 5 }),
			nomad: fakeJobNomad{job: live(5, 20)}, want: wantRun{steps: []string{"get-job", "register @5", "wait-rollout"}}},
		"secrets removed: deleted after the registration": {update: true,
			in:    write("service", func(in *JobWrite) { in.HadVersion, in.Index = i64(1), 5 }),
			nomad: fakeJobNomad{job: live(5, 20)}, want: wantRun{steps: []string{"get-job", "register @5", "wait-rollout", "delete " + varPath}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			run := NewJobs(&f, "berth").Create
			if tc.update {
				run = NewJobs(&f, "berth").Update
			}
			out, err := run(context.Background(), tc.in)
			tc.want.check(t, f.steps, err, out.Problems)
		})
	}
}

func TestJobDelete(t *testing.T) {
	for name, tc := range map[string]struct {
		secrets     bool
		reservation string
		fail        map[string]error
		want        wantRun
	}{
		"room handed back":          {reservation: testReservation, want: wantRun{steps: []string{"uncharge", "sync", "remove purge=true", "wait"}}},
		"purged in one request":     {want: wantRun{steps: []string{"stop purge=true"}}},
		"and its Variable":          {secrets: true, want: wantRun{steps: []string{"stop purge=true", "delete nomad/jobs/shop"}}},
		"stop fails: Variable kept": {secrets: true, fail: map[string]error{"stop purge=true": errNomad}, want: wantRun{steps: []string{"stop purge=true"}, err: "*workflow.NomadError"}},
		"Variable left: the destroy fails": {secrets: true, fail: map[string]error{"delete nomad/jobs/shop": errNomad},
			want: wantRun{steps: []string{"stop purge=true", "delete nomad/jobs/shop"}, err: "*workflow.SecretDeleteError"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := fakeJobNomad{fakeLedger: &fakeLedger{}, fail: tc.fail}
			out, err := NewJobs(&f, "berth").Delete(context.Background(), "default", "shop", tc.reservation, true, tc.secrets, 42)
			tc.want.check(t, f.steps, err, out.Problems)
		})
	}
}

// A Variable berth did not write at the job's path is never overwritten
// nor deleted: a create is sent at cas=0 and a refusal registers nothing;
// a rotation and a delete go at the index berth recorded; a Variable
// written since by someone else is left on destroy, as a warning.
func TestJobSecretsCheckAndSet(t *testing.T) {
	spec := jobspec.Spec{Format: jobspec.FormatJSON, Source: `{"ID": "shop", "Name": "shop", "TaskGroups": [{"Name": "web",
  "Tasks": [{"Name": "app", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}`}
	sum, err := jobspec.Describe(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	const varPath = "nomad/jobs/shop"
	taken := &nomadclient.VariableConflictError{Ref: variable.Ref{Namespace: "default", Path: varPath}}
	in := JobWrite{Spec: spec, Job: sum, Namespace: "default", SecretsVersion: i64(1), Secrets: map[string]string{"k": "hunter22"}}

	f := fakeJobNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"put " + varPath: taken}}
	out, err := NewJobs(&f, "berth").Create(context.Background(), in)
	var secretErr *SecretError
	if !errors.As(err, &secretErr) || !secretErr.Taken() || secretErr.Path != varPath {
		t.Fatalf("create over a Variable someone holds = %v, want a taken SecretError at %s", err, varPath)
	}
	if strings.Join(f.steps, ",") != "get-job,put "+varPath || strings.Join(f.cas, ",") != "put 0" || out.SecretsIndex != 0 {
		t.Errorf("steps %v, cas %v, index %d: want the Variable created at cas=0, nothing registered or deleted", f.steps, f.cas, out.SecretsIndex)
	}

	f = fakeJobNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"register @0": nomadAnswers(t, 400, "bad job")}}
	out, _ = NewJobs(&f, "berth").Create(context.Background(), in)
	if strings.Join(f.cas, ",") != "put 0,delete 100" || out.SecretsIndex != 0 {
		t.Errorf("refused registration: cas %v, index %d; want the Variable deleted at the index written (100)", f.cas, out.SecretsIndex)
	}

	rotate := in
	rotate.SecretsVersion, rotate.HadVersion, rotate.SecretsIndex, rotate.Index = i64(2), i64(1), 42, 5
	f = fakeJobNomad{fakeLedger: &fakeLedger{}, job: mustJob(t, spec, 5)}
	out, err = NewJobs(&f, "berth").Update(context.Background(), rotate)
	if err != nil || strings.Join(f.cas, ",") != "put 42" || out.SecretsIndex != 100 {
		t.Errorf("rotation: err %v, cas %v, index %d; want a write at 42 recording 100", err, f.cas, out.SecretsIndex)
	}

	f = fakeJobNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"delete " + varPath: taken}}
	out, err = NewJobs(&f, "berth").Delete(context.Background(), "default", "shop", "", true, true, 42)
	var dropErr *SecretDeleteError
	if err != nil || len(out.Problems) != 1 || !errors.As(out.Problems[0], &dropErr) || !dropErr.Taken || dropErr.Fatal {
		t.Errorf("destroy over a Variable written since: err %v, problems %v; want it left with a warning", err, out.Problems)
	}
}

func mustJob(t *testing.T, s jobspec.Spec, index uint64) *nomadclient.Job {
	t.Helper()
	j, err := nomadclient.JobspecJob(s, index)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
