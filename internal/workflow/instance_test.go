package workflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// fakeInstanceNomad stands in for Nomad behind the instance workflow: it
// records each call as a step and fails the steps named in fail (a step's
// name without its arguments: "register", "put-secret web", ...).
type fakeInstanceNomad struct {
	*fakeLedger
	job        *nomadclient.Job
	fail       map[string]error
	rollout    *nomadclient.Deployment
	active     *nomadclient.Deployment
	promoted   *nomadclient.Deployment
	registered []instance.Spec
	warnings   string // Nomad's warnings on a registration
	// rolloutErrs are what the waits for a rollout return, in turn,
	// before fail's.
	rolloutErrs []error
	cas         []string
}

func (f *fakeInstanceNomad) step(name, args string) error {
	full := strings.TrimSpace(name + " " + args)
	f.steps = append(f.steps, full)
	if err, ok := f.fail[full]; ok {
		return err
	}
	return f.fail[name]
}

func (f *fakeInstanceNomad) GetJob(_ context.Context, _, _ string) (*nomadclient.Job, error) {
	if err := f.step("get-job", ""); err != nil {
		return nil, err
	}
	return f.job, nil
}

func (f *fakeInstanceNomad) RegisterInstance(_ context.Context, spec instance.Spec, count int, index uint64) (*nomadclient.RegisterResult, error) {
	if err := f.step("register", fmt.Sprintf("%d@%d", count, index)); err != nil {
		return nil, err
	}
	f.registered = append(f.registered, spec)
	return &nomadclient.RegisterResult{EvalID: "eval-1", JobModifyIndex: index + 10, Warnings: f.warnings}, nil
}

func (f *fakeInstanceNomad) ActiveDeployment(context.Context, *nomadclient.Job) (*nomadclient.Deployment, error) {
	return f.active, f.step("active-deployment", "")
}

func (f *fakeInstanceNomad) ScaleJob(_ context.Context, _, _, _ string, count int, _ string, index uint64) (*nomadclient.RegisterResult, error) {
	if err := f.step("scale", fmt.Sprintf("%d@%d", count, index)); err != nil {
		return nil, err
	}
	return &nomadclient.RegisterResult{EvalID: "eval-2", JobModifyIndex: index + 1}, nil
}

func (f *fakeInstanceNomad) RemoveJob(_ context.Context, _, _ string, r nomadclient.Removal) error {
	if r.UntilStopped {
		return f.step("remove", fmt.Sprint(r.Purge)+" until-stopped")
	}
	return f.step("remove", fmt.Sprint(r.Purge))
}

func (f *fakeInstanceNomad) WaitAllocationsStopped(context.Context, string, string) error {
	return f.step("wait-stopped", "")
}

func (f *fakeInstanceNomad) WaitBatchComplete(context.Context, string, string, string) error {
	return f.step("wait-batch", "")
}

func (f *fakeInstanceNomad) WaitSystemRunning(context.Context, string, string, string) error {
	return f.step("wait-system", "")
}

func (f *fakeInstanceNomad) WaitForPlacement(context.Context, string, string, string) (*nomadclient.Deployment, error) {
	return f.rollout, f.step("wait-placement", "")
}

func (f *fakeInstanceNomad) WaitForRollout(context.Context, string, string, string) (*nomadclient.Deployment, error) {
	err := f.step("wait-rollout", "")
	if len(f.rolloutErrs) > 0 {
		err, f.rolloutErrs = f.rolloutErrs[0], f.rolloutErrs[1:]
	}
	return f.rollout, err
}

func (f *fakeInstanceNomad) PromoteCanaries(context.Context, string, string, nomadclient.PromoteOptions) (*nomadclient.Deployment, error) {
	return f.promoted, f.step("promote", "")
}

func (f *fakeInstanceNomad) RestartAllocations(context.Context, string, string) error {
	return f.step("restart", "")
}

// PutSecretEnv writes at index 100; cas records each check-and-set index.
func (f *fakeInstanceNomad) PutSecretEnv(_ context.Context, _, path string, _ map[string]string, index uint64) (uint64, error) {
	svc := path[strings.LastIndex(path, "/")+1:]
	f.cas = append(f.cas, fmt.Sprintf("put-secret %s %d", svc, index))
	return 100, f.step("put-secret", svc)
}

func (f *fakeInstanceNomad) DeleteSecretEnv(_ context.Context, _, path string, index uint64) error {
	svc := path[strings.LastIndex(path, "/")+1:]
	f.cas = append(f.cas, fmt.Sprintf("delete-secret %s %d", svc, index))
	return f.step("delete-secret", svc)
}

// nomadAnswers is the error nomadclient returns when Nomad answers a write
// with status and body: a real one, from an HTTP server answering so.
func nomadAnswers(t *testing.T, status int, body string) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, body, status)
	}))
	defer srv.Close()
	c, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ScaleJob(context.Background(), "default", "web", "web", 1, "test", 1)
	if err == nil {
		t.Fatal("the fake answer was taken as a success")
	}
	return err
}

func intp(n int) *int { return &n }

// webSpec is a small running service instance; secrets gives services
// "web" and "side" secret versions.
func webSpec(replicas int, secrets ...int) instance.Spec {
	s := instance.Spec{Name: "web", Namespace: "default", Running: true, Replicas: intp(replicas), Datacenters: []string{"dc1"},
		Services: map[string]instance.Service{
			"web":  {Role: instance.RoleMain, Driver: "raw_exec", Command: "/bin/sleep", CPU: 100, Memory: 64},
			"side": {Role: instance.RoleSidecar, Driver: "raw_exec", Command: "/bin/sleep", CPU: 50, Memory: 32},
		}}
	for i, name := range []string{"side", "web"} {
		if i < len(secrets) {
			svc := s.Services[name]
			svc.SecretEnvVersion = intp(secrets[i])
			s.Services[name] = svc
		}
	}
	return s
}

var bothSecrets = map[string]map[string]string{"web": {"PASSWORD": "hunter22"}, "side": {"TOKEN": "s3cr3t-token"}}

type instanceCase struct {
	nomad    fakeInstanceNomad
	in       InstanceWrite
	steps    []string
	err      string // the error's type, "" for none
	problems []string
	warnings []string
	written  bool
	rollout  bool
	check    func(t *testing.T, out InstanceOutcome, err error)
}

func runInstanceCases(t *testing.T, cases map[string]instanceCase, run func(Instances, context.Context, InstanceWrite) (InstanceOutcome, error)) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			out, err := run(NewInstances(&f, "berth"), context.Background(), tc.in)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
			if got := summaries(out.Warnings); !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings %v, want %v", got, tc.warnings)
			}
			if (out.Written != nil) != tc.written {
				t.Errorf("written = %v, want %v", out.Written != nil, tc.written)
			}
			if (out.RolloutErr != nil) != tc.rollout {
				t.Errorf("rollout error = %v, want one: %v", out.RolloutErr, tc.rollout)
			}
			if tc.check != nil {
				tc.check(t, out, err)
			}
		})
	}
}

func TestInstanceCreate(t *testing.T) {
	refused := nomadAnswers(t, http.StatusBadRequest, "group web: invalid driver")
	conflict := nomadAnswers(t, http.StatusBadRequest, "Enforcing job modify index 0: job already exists")
	withSecrets := InstanceWrite{Want: webSpec(2, 1, 1), Secrets: bothSecrets, Wait: true}
	charged := InstanceWrite{Want: webSpec(2), Reservation: testReservation, Wait: true}
	existing := nomadclient.InstanceJob(webSpec(1), 1, 5)
	runInstanceCases(t, map[string]instanceCase{
		"registered and healthy": {in: InstanceWrite{Want: webSpec(2), Wait: true},
			nomad:   fakeInstanceNomad{rollout: &nomadclient.Deployment{ID: "d1", Status: "successful"}},
			steps:   []string{"register 1@0", "wait-rollout"},
			written: true,
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				if out.Deployment == nil || *out.Deployment != (Deployment{ID: "d1", Status: "successful"}) {
					t.Errorf("deployment %+v", out.Deployment)
				}
			}},
		"no wait":                {in: InstanceWrite{Want: webSpec(1)}, steps: []string{"register 1@0"}, written: true},
		"charged before the job": {in: charged, steps: []string{"get-job", "charge", "sync", "register 1@0", "wait-rollout"}, written: true},
		"a job of that name: nothing written": {in: charged, nomad: fakeInstanceNomad{job: existing},
			steps: []string{"get-job"}, err: "*workflow.JobExistsError"},
		"lookup fails: nothing written": {in: charged, nomad: fakeInstanceNomad{fail: map[string]error{"get-job": errNomad}},
			steps: []string{"get-job"}, err: "*workflow.NomadError"},
		"charge refused: nothing else": {in: charged, nomad: fakeInstanceNomad{fakeLedger: &fakeLedger{chargeErr: errNomad}},
			steps: []string{"get-job", "charge"}, err: "*workflow.ChargeError"},
		"secrets written before the job": {in: withSecrets,
			steps: []string{"get-job", "put-secret side", "put-secret web", "register 1@0", "wait-rollout"}, written: true},
		"second secret fails: the first deleted": {in: withSecrets, nomad: fakeInstanceNomad{fail: map[string]error{"put-secret web": errNomad}},
			steps: []string{"get-job", "put-secret side", "put-secret web", "delete-secret side"}, err: "*workflow.SecretError"},
		"secret missing from the configuration": {in: InstanceWrite{Want: webSpec(1, 1), Secrets: map[string]map[string]string{}},
			steps: []string{"get-job"}, err: "*workflow.SecretError",
			check: func(t *testing.T, _ InstanceOutcome, err error) {
				var se *SecretError
				if !errors.As(err, &se) || !se.Missing || se.Service != "side" {
					t.Errorf("want a missing secret of side, got %v", err)
				}
			}},
		"refused: secrets deleted, charge released": {
			in:    InstanceWrite{Want: webSpec(2, 1, 1), Secrets: bothSecrets, Reservation: testReservation},
			nomad: fakeInstanceNomad{fail: map[string]error{"register": refused}},
			steps: []string{"get-job", "charge", "sync", "put-secret side", "put-secret web", "register 1@0",
				"delete-secret side", "delete-secret web", "uncharge", "sync"},
			err: "*workflow.WriteError"},
		"refused, and the undo fails too: each a problem": {
			in:    InstanceWrite{Want: webSpec(2, 1), Secrets: bothSecrets, Reservation: testReservation},
			nomad: fakeInstanceNomad{fail: map[string]error{"register": refused, "delete-secret": errNomad}, fakeLedger: &fakeLedger{unchgErr: errNomad}},
			steps: []string{"get-job", "charge", "sync", "put-secret side", "register 1@0", "delete-secret side", "uncharge"},
			err:   "*workflow.WriteError", problems: []string{"*workflow.SecretDeleteError", "*workflow.ReleaseError"}},
		"someone registered it since the plan": {in: InstanceWrite{Want: webSpec(1)},
			nomad: fakeInstanceNomad{fail: map[string]error{"register": conflict}, job: existing},
			steps: []string{"register 1@0", "get-job"}, err: "*workflow.JobExistsError"},
		"answer lost: the charge stays": {in: charged, nomad: fakeInstanceNomad{fail: map[string]error{"register": &nomadclient.UncertainWriteError{Err: errNomad}}},
			steps: []string{"get-job", "charge", "sync", "register 1@0"}, err: "*workflow.WriteError",
			check: func(t *testing.T, _ InstanceOutcome, err error) {
				var we *WriteError
				if !errors.As(err, &we) || !we.Uncertain {
					t.Errorf("want an uncertain write, got %v", err)
				}
			}},
		"rollout fails: the job stays": {in: InstanceWrite{Want: webSpec(1), Wait: true},
			nomad:   fakeInstanceNomad{fail: map[string]error{"wait-rollout": &nomadclient.RolloutError{JobID: "web", DeploymentID: "d9"}}},
			steps:   []string{"register 1@0", "wait-rollout"},
			written: true, rollout: true,
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				if out.Deployment == nil || *out.Deployment != (Deployment{ID: "d9", Status: instance.DeploymentFailed}) {
					t.Errorf("deployment %+v", out.Deployment)
				}
			}},
		"deployment left running by Nomad: done, with a warning": {in: InstanceWrite{Want: webSpec(1), Wait: true},
			nomad:   fakeInstanceNomad{rollout: &nomadclient.Deployment{ID: "d1", Status: "running", Forgotten: forgottenNote}},
			steps:   []string{"register 1@0", "wait-rollout"},
			written: true, warnings: []string{"Deployment left running by Nomad"},
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				checkForgottenWarning(t, out.Deployment, out.Warnings)
			}},
		"deployment left running, allocations not healthy: failed, status as Nomad shows it": {in: InstanceWrite{Want: webSpec(1), Wait: true},
			nomad: fakeInstanceNomad{fail: map[string]error{"wait-rollout": &nomadclient.RolloutError{JobID: "web", DeploymentID: "d9",
				DeploymentStatus: "running"}}},
			steps:   []string{"register 1@0", "wait-rollout"},
			written: true, rollout: true,
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				if out.Deployment == nil || *out.Deployment != (Deployment{ID: "d9", Status: "running"}) {
					t.Errorf("deployment %+v, want d9 running as Nomad shows it", out.Deployment)
				}
			}},
		"stopped: waits for its allocations to stop": {in: InstanceWrite{Want: stopped(webSpec(1)), Wait: true},
			steps: []string{"register 1@0", "wait-stopped"}, written: true},
		"Nomad's warnings passed on": {in: InstanceWrite{Want: webSpec(1)}, nomad: fakeInstanceNomad{warnings: "group web: deprecated"},
			steps: []string{"register 1@0"}, written: true, warnings: []string{"Nomad warnings"}},
	}, Instances.Create)
}

func stopped(s instance.Spec) instance.Spec { s.Running = false; return s }

// forgottenNote is what nomadclient says of a deployment Nomad left
// running once the rollout was done.
const forgottenNote = `Nomad still shows deployment d1 of job "web" (version 3) as "running"`

// checkForgottenWarning: the deployment is recorded as Nomad shows it, and
// the one warning quotes what Nomad shows and says how to look.
func checkForgottenWarning(t *testing.T, dep *Deployment, ws []Warning) {
	t.Helper()
	if dep == nil || dep.ID != "d1" || dep.Status != "running" {
		t.Errorf("deployment %+v, want d1 running", dep)
	}
	if len(ws) != 1 || !strings.HasPrefix(ws[0].Detail, forgottenNote+"\n\n") ||
		!strings.Contains(ws[0].Detail, "`nomad deployment status d1`") {
		t.Errorf("warnings %+v, want one quoting Nomad and naming `nomad deployment status d1`", ws)
	}
}

const otherReservation = "0b1c2d3e-0000-4000-8000-000000000002/db"

func withMemory(s instance.Spec, mb int) instance.Spec {
	svc := s.Services["web"]
	svc.Memory = mb
	s.Services["web"] = svc
	return s
}

func batch(s instance.Spec) instance.Spec { s.Type = instance.TypeBatch; return s }

// updateOf is an update from had (running in Nomad at index 7) to want.
func updateOf(had, want instance.Spec) InstanceWrite {
	return InstanceWrite{Want: want, Had: &had, Index: 7, Wait: true}
}

func moved(in InstanceWrite) InstanceWrite {
	in.Reservation, in.HadReservation = otherReservation, testReservation
	return in
}

func TestInstanceUpdate(t *testing.T) {
	had := webSpec(2)
	live := nomadclient.InstanceJob(had, 2, 7)
	refused := nomadAnswers(t, http.StatusBadRequest, "group web: invalid driver")
	blocked := nomadAnswers(t, http.StatusBadRequest, "job scaling blocked due to active deployment")
	awaiting := &nomadclient.Deployment{ID: "d2", Status: "running", AwaitingPromotion: true}
	bigger := updateOf(had, withMemory(webSpec(2), 128))
	unmanagedCount := updateOf(webSpec(2), withMemory(webSpec(2), 128))
	unmanagedCount.Want.Replicas, unmanagedCount.Had.Replicas = nil, nil
	charged := bigger
	charged.Reservation, charged.HadReservation = testReservation, testReservation
	newSecret := updateOf(webSpec(2, 1), webSpec(2, 2))
	newSecret.Reservation, newSecret.HadReservation, newSecret.Secrets = testReservation, testReservation, bothSecrets
	promote, restart := updateOf(had, had), updateOf(had, had)
	promote.Promote, restart.Restart = true, true
	everything := moved(bigger)
	everything.Promote, everything.Restart = true, true
	dropWeb := updateOf(webSpec(2, 1, 1), webSpec(2, 1))
	rerun := updateOf(batch(webSpec(2)), withMemory(batch(webSpec(2)), 128))
	rerun.CollectedBatch = true
	lost := &nomadclient.RegistrationLostError{JobID: "web", Registered: 17, Live: 12, LiveVersion: 1}
	runInstanceCases(t, map[string]instanceCase{
		"unchanged: nothing written": {in: updateOf(had, had), nomad: fakeInstanceNomad{job: live}, steps: []string{"get-job"}},
		"changed: registered and settled": {in: bigger, nomad: fakeInstanceNomad{job: live},
			steps: []string{"get-job", "register 2@7", "wait-rollout"}, written: true},
		"only the count: scaled": {in: updateOf(had, webSpec(3)), nomad: fakeInstanceNomad{job: live},
			steps: []string{"get-job", "active-deployment", "scale 3@7", "wait-rollout"}, written: true},
		"count during a deployment: registered": {in: updateOf(had, webSpec(3)),
			nomad: fakeInstanceNomad{job: live, active: &nomadclient.Deployment{ID: "d0", Status: "running"}},
			steps: []string{"get-job", "active-deployment", "register 3@7", "wait-rollout"}, written: true},
		"scale blocked by a deployment begun meanwhile: registered": {in: updateOf(had, webSpec(3)),
			nomad: fakeInstanceNomad{job: live, fail: map[string]error{"scale": blocked}},
			steps: []string{"get-job", "active-deployment", "scale 3@7", "register 3@7", "wait-rollout"}, written: true},
		"job gone": {in: bigger, steps: []string{"get-job"}, err: "*workflow.JobGoneError"},
		"read fails": {in: bigger, nomad: fakeInstanceNomad{fail: map[string]error{"get-job": errNomad}},
			steps: []string{"get-job"}, err: "*workflow.NomadError"},
		"collected batch job: registered anew": {in: rerun, steps: []string{"get-job", "register 2@0", "wait-batch"}, written: true},
		"changed in Nomad since the plan: nothing written": {in: bigger,
			nomad: fakeInstanceNomad{job: nomadclient.InstanceJob(withMemory(webSpec(2), 32), 2, 9)},
			steps: []string{"get-job"}, err: "*workflow.JobChangedError",
			check: func(t *testing.T, _ InstanceOutcome, err error) {
				var ce *JobChangedError
				if !errors.As(err, &ce) || ce.Index != 9 || ce.Expected != 7 || len(ce.Changed) == 0 {
					t.Errorf("want the change named, got %+v", err)
				}
			}},
		"count moved in Nomad, not managed here: written at the live count": {in: unmanagedCount,
			nomad: fakeInstanceNomad{job: nomadclient.InstanceJob(webSpec(5), 5, 9)},
			steps: []string{"get-job", "register 5@9", "wait-rollout"}, written: true},
		"charge refused: nothing written": {in: charged, nomad: fakeInstanceNomad{job: live, fakeLedger: &fakeLedger{chargeErr: errNomad}},
			steps: []string{"get-job", "charge"}, err: "*workflow.ChargeError"},
		"secret write fails: the old charge restored": {in: newSecret,
			nomad: fakeInstanceNomad{job: nomadclient.InstanceJob(webSpec(2, 1), 2, 7), fail: map[string]error{"put-secret": errNomad}},
			steps: []string{"get-job", "charge", "sync", "put-secret side", "charge", "sync"}, err: "*workflow.SecretError"},
		"moved to another node reservation: the old room handed back": {in: moved(bigger), nomad: fakeInstanceNomad{job: live},
			steps: []string{"get-job", "charge", "sync", "uncharge", "sync", "register 2@7", "wait-rollout", "wait"}, written: true},
		"move: the old charge cannot be released, the new one given back": {in: moved(bigger),
			nomad: fakeInstanceNomad{job: live, fakeLedger: &fakeLedger{unchgErr: errNomad}},
			steps: []string{"get-job", "charge", "sync", "uncharge", "uncharge"}, err: "*workflow.ReleaseError",
			problems: []string{"*workflow.ReleaseError"}},
		"refused: both charges restored": {in: moved(bigger), nomad: fakeInstanceNomad{job: live, fail: map[string]error{"register": refused}},
			steps: []string{"get-job", "charge", "sync", "uncharge", "sync", "register 2@7", "uncharge", "sync", "charge", "sync"},
			err:   "*workflow.WriteError"},
		"the old charge cannot be restored: a problem beside the refusal": {in: charged,
			nomad: fakeInstanceNomad{job: live, fail: map[string]error{"register": refused}, fakeLedger: &fakeLedger{failCharge: 2}},
			steps: []string{"get-job", "charge", "sync", "register 2@7", "charge"}, err: "*workflow.WriteError",
			problems: []string{"*workflow.ChargeError"}},
		"answer lost: the charges stay moved": {in: moved(bigger),
			nomad: fakeInstanceNomad{job: live, fail: map[string]error{"register": &nomadclient.UncertainWriteError{Err: errNomad}}},
			steps: []string{"get-job", "charge", "sync", "uncharge", "sync", "register 2@7"}, err: "*workflow.WriteError"},
		"scale refused: the charge restored": {in: func() InstanceWrite {
			in := updateOf(had, webSpec(3))
			in.Reservation, in.HadReservation = testReservation, testReservation
			return in
		}(),
			nomad: fakeInstanceNomad{job: live, fail: map[string]error{"scale": refused}},
			steps: []string{"get-job", "charge", "sync", "active-deployment", "scale 3@7", "charge", "sync"}, err: "*workflow.WriteError"},
		"promoted": {in: promote, nomad: fakeInstanceNomad{job: live, promoted: &nomadclient.Deployment{ID: "d3", Status: "successful"}},
			steps: []string{"get-job", "promote"},
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				if out.Deployment == nil || out.Deployment.ID != "d3" {
					t.Errorf("deployment %+v", out.Deployment)
				}
			}},
		"promoted, deployment left running by Nomad: a warning": {in: promote,
			nomad: fakeInstanceNomad{job: live, promoted: &nomadclient.Deployment{ID: "d1", Status: "running", Forgotten: forgottenNote}},
			steps: []string{"get-job", "promote"}, warnings: []string{"Deployment left running by Nomad"},
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				checkForgottenWarning(t, out.Deployment, out.Warnings)
			}},
		"nothing to promote": {in: promote, nomad: fakeInstanceNomad{job: live}, steps: []string{"get-job", "promote"},
			warnings: []string{"Nothing to promote"}},
		"canaries await promotion": {in: bigger, nomad: fakeInstanceNomad{job: live, rollout: awaiting},
			steps: []string{"get-job", "register 2@7", "wait-rollout"}, written: true, warnings: []string{"Deployment awaits promotion"}},
		"restarted": {in: restart, nomad: fakeInstanceNomad{job: live}, steps: []string{"get-job", "restart"}},
		"restart fails": {in: restart, nomad: fakeInstanceNomad{job: live, fail: map[string]error{"restart": errNomad}},
			steps: []string{"get-job", "restart"}, rollout: true},
		"rollout fails: no promotion, restart or hand-back": {in: everything,
			nomad: fakeInstanceNomad{job: live, fail: map[string]error{"wait-rollout": &nomadclient.RolloutError{JobID: "web"}}},
			steps: []string{"get-job", "charge", "sync", "uncharge", "sync", "register 2@7", "wait-rollout"}, written: true, rollout: true},
		// Nomad marked the drifted version's deployment successful after
		// the registration, which put that version back as the job.
		"registration undone by Nomad: registered again against the job it holds": {in: bigger,
			nomad: fakeInstanceNomad{job: live, rolloutErrs: []error{lost}},
			steps: []string{"get-job", "register 2@7", "wait-rollout", "register 2@12", "wait-rollout"}, written: true,
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				if out.Written.JobModifyIndex != 22 {
					t.Errorf("written %+v, want the second registration's", out.Written)
				}
			}},
		"registration undone again and again: given up with the error": {in: bigger,
			nomad:   fakeInstanceNomad{job: live, rolloutErrs: []error{lost, lost, lost}},
			steps:   []string{"get-job", "register 2@7", "wait-rollout", "register 2@12", "wait-rollout", "register 2@12", "wait-rollout"},
			written: true, rollout: true,
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				var le *nomadclient.RegistrationLostError
				if !errors.As(out.RolloutErr, &le) {
					t.Errorf("rollout error %v, want the lost registration", out.RolloutErr)
				}
			}},
		"registration undone, registering again refused": {in: bigger,
			nomad: fakeInstanceNomad{job: live, rolloutErrs: []error{lost}, fail: map[string]error{"register 2@12": errNomad}},
			steps: []string{"get-job", "register 2@7", "wait-rollout", "register 2@12"}, written: true, rollout: true},
		"secrets no job reads are deleted after the write": {in: dropWeb,
			nomad: fakeInstanceNomad{job: nomadclient.InstanceJob(webSpec(2, 1, 1), 2, 7), fail: map[string]error{"delete-secret": errNomad}},
			steps: []string{"get-job", "register 2@7", "wait-rollout", "delete-secret web"}, written: true,
			problems: []string{"*workflow.SecretDeleteError"},
			check: func(t *testing.T, out InstanceOutcome, _ error) {
				var de *SecretDeleteError
				if !errors.As(out.Problems[0], &de) || de.Fatal {
					t.Errorf("a Variable left after an update is a warning, got %+v", out.Problems[0])
				}
			}},
	}, Instances.Update)
}

func TestInstanceDelete(t *testing.T) {
	secrets := webSpec(1, 1, 1)
	plain := instance.Spec{Name: "web"}
	mounts := instance.Spec{Name: "web", Volumes: map[string]instance.VolumeClaim{"data": {Source: "data"}}}
	cases := map[string]struct {
		nomad    fakeInstanceNomad
		in       InstanceDelete
		steps    []string
		err      string
		problems []string
	}{
		"removed and purged":  {in: InstanceDelete{Name: "web", Purge: true, Had: &plain}, steps: []string{"remove true"}},
		"removed, not purged": {in: InstanceDelete{Name: "web", Had: &plain}, steps: []string{"remove false"}},
		"volumes: waits until the clients stopped it": {in: InstanceDelete{Name: "web", Purge: true, Had: &mounts},
			steps: []string{"remove true until-stopped"}},
		"state cannot say: waits until the clients stopped it": {in: InstanceDelete{Name: "web", Purge: true},
			steps: []string{"remove true until-stopped"}},
		"room handed back without a gap": {in: InstanceDelete{Name: "web", Purge: true, Reservation: testReservation, Had: &plain},
			steps: []string{"uncharge", "sync", "remove true", "wait"}},
		"release fails: still removed": {in: InstanceDelete{Name: "web", Purge: true, Reservation: testReservation, Had: &plain},
			nomad: fakeInstanceNomad{fakeLedger: &fakeLedger{unchgErr: errNomad}},
			steps: []string{"uncharge", "remove true"}, problems: []string{"*workflow.ReleaseError"}},
		"secrets deleted after the job": {in: InstanceDelete{Name: "web", Purge: true, Had: &secrets},
			steps: []string{"remove true", "delete-secret side", "delete-secret web"}},
		"remove fails: the secrets stay": {in: InstanceDelete{Name: "web", Purge: true, Had: &secrets},
			nomad: fakeInstanceNomad{fail: map[string]error{"remove": errNomad}},
			steps: []string{"remove true"}, err: "*workflow.NomadError"},
		"a secret left behind fails the destroy": {in: InstanceDelete{Name: "web", Purge: true, Had: &secrets},
			nomad: fakeInstanceNomad{fail: map[string]error{"delete-secret web": errNomad}},
			steps: []string{"remove true", "delete-secret side", "delete-secret web"}, problems: []string{"*workflow.SecretDeleteError"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			out, err := NewInstances(&f, "berth").Delete(context.Background(), tc.in)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
			for _, p := range out.Problems {
				if de := (*SecretDeleteError)(nil); errors.As(p, &de) && !de.Fatal {
					t.Errorf("a Variable left on destroy must fail it: %+v", de)
				}
			}
		})
	}
}
