package workflow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// fakeLeaseNomad stands in for Nomad behind the lease workflow. jobs are
// what successive GetJob calls return (the last one repeats).
type fakeLeaseNomad struct {
	*fakeLedger
	fail map[string]error
	jobs []*nomadclient.Job
	gets int
}

func (f *fakeLeaseNomad) step(name string) error {
	f.steps = append(f.steps, name)
	return f.fail[name]
}

func (f *fakeLeaseNomad) GetJob(context.Context, string, string) (*nomadclient.Job, error) {
	err := f.step("get-job")
	if err != nil || len(f.jobs) == 0 {
		return nil, err
	}
	j := f.jobs[min(f.gets, len(f.jobs)-1)]
	f.gets++
	return j, nil
}

func (f *fakeLeaseNomad) RegisterLease(_ context.Context, _ lease.Lease, _ string, _ time.Time, index uint64) (*nomadclient.RegisterResult, error) {
	if err := f.step(fmt.Sprintf("register @%d", index)); err != nil {
		return nil, err
	}
	return &nomadclient.RegisterResult{EvalID: "eval-1", JobModifyIndex: index + 5}, nil
}

func (f *fakeLeaseNomad) WaitTaskRunning(context.Context, string, string, string, string) error {
	return f.step("wait-running")
}

func (f *fakeLeaseNomad) RemoveJob(_ context.Context, _, _ string, r nomadclient.Removal) error {
	return f.step(fmt.Sprintf("remove purge=%t", r.Purge))
}

func TestLeaseWrites(t *testing.T) {
	now := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	l := lease.Lease{Name: "ci", Namespace: "default", CreatedAt: now, Duration: time.Hour,
		Workload: lease.Workload{Driver: "raw_exec", Command: "/bin/sleep", Args: []string{"3600"}, CPU: 50, Memory: 32, Disk: 150}}
	longer := l
	longer.Duration = 2 * time.Hour
	registered := nomadclient.LeaseJob(l, "raw_exec", now, 7)
	other := nomadclient.InstanceJob(webSpec(1), 1, 3)
	changed := l
	changed.Workload.Memory = 64
	create := LeaseWrite{Lease: l, Reservation: testReservation, Now: now, Wait: true}
	update := LeaseWrite{Lease: longer, Had: l, Now: now, Index: 7}
	cases := map[string]struct {
		nomad    fakeLeaseNomad
		update   bool
		in       LeaseWrite
		gone     bool // Record finds the job gone
		steps    []string
		records  []uint64
		err      string
		problems []string
		written  bool
	}{
		"registered, running, recorded": {in: create, steps: []string{"get-job", "charge", "sync", "register @0", "wait-running"},
			records: []uint64{5}, written: true},
		"no wait": {in: LeaseWrite{Lease: l, Now: now}, steps: []string{"get-job", "register @0"}, records: []uint64{5}, written: true},
		"name taken: nothing written": {in: create, nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{other}},
			steps: []string{"get-job"}, err: "*workflow.JobExistsError"},
		"charge refused": {in: create, nomad: fakeLeaseNomad{fakeLedger: &fakeLedger{chargeErr: errNomad}},
			steps: []string{"get-job", "charge"}, err: "*workflow.ChargeError"},
		"refused, not in Nomad: the charge released": {in: create, nomad: fakeLeaseNomad{fail: map[string]error{"register @0": errNomad}},
			steps: []string{"get-job", "charge", "sync", "register @0", "get-job", "uncharge", "sync"}, err: "*workflow.NomadError"},
		"failed, but Nomad holds it: recorded": {in: create,
			nomad: fakeLeaseNomad{fail: map[string]error{"register @0": errNomad}, jobs: []*nomadclient.Job{nil, registered}},
			steps: []string{"get-job", "charge", "sync", "register @0", "get-job"}, records: []uint64{7}, err: "*workflow.NomadError", written: true},
		"failed, held, then deleted again: the charge released": {in: create, gone: true,
			nomad: fakeLeaseNomad{fail: map[string]error{"register @0": errNomad}, jobs: []*nomadclient.Job{nil, registered}},
			steps: []string{"get-job", "charge", "sync", "register @0", "get-job", "uncharge", "sync"}, records: []uint64{7}, err: "*workflow.NomadError"},
		"workload never runs: recorded all the same": {in: create, nomad: fakeLeaseNomad{fail: map[string]error{"wait-running": errNomad}},
			steps: []string{"get-job", "charge", "sync", "register @0", "wait-running"}, records: []uint64{5}, written: true},
		"vanished after the registration: the charge released": {in: create, gone: true,
			steps: []string{"get-job", "charge", "sync", "register @0", "wait-running", "uncharge", "sync"}, records: []uint64{5},
			err: "*workflow.LeaseVanishedError"},
		"updated at the index read": {update: true, in: update, nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{registered}},
			steps: []string{"get-job", "register @7"}, records: []uint64{12}, written: true},
		"updated: moved index, same lease": {update: true, in: func() LeaseWrite { in := update; in.Index = 3; return in }(),
			nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{registered}}, steps: []string{"get-job", "register @7"}, records: []uint64{12}, written: true},
		"changed in Nomad since the plan": {update: true, in: func() LeaseWrite { in := update; in.Index = 3; return in }(),
			nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{nomadclient.LeaseJob(changed, "raw_exec", now, 7)}},
			steps: []string{"get-job"}, err: "*workflow.JobChangedError"},
		"job gone": {update: true, in: update, steps: []string{"get-job"}, err: "*workflow.JobGoneError"},
		"update fails": {update: true, in: update, nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{registered}, fail: map[string]error{"register @7": errNomad}},
			steps: []string{"get-job", "register @7"}, err: "*workflow.NomadError"},
		"vanished after the update": {update: true, in: update, gone: true, nomad: fakeLeaseNomad{jobs: []*nomadclient.Job{registered}},
			steps: []string{"get-job", "register @7"}, records: []uint64{12}, err: "*workflow.LeaseVanishedError", written: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			var records []uint64
			in := tc.in
			in.Record = func(_ context.Context, index uint64) bool { records = append(records, index); return !tc.gone }
			w := NewLeases(&f, "berth", "raw_exec")
			run := w.Create
			if tc.update {
				run = w.Update
			}
			out, err := run(context.Background(), in)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
			if !slices.Equal(records, tc.records) {
				t.Errorf("recorded at %v, want %v", records, tc.records)
			}
			if out.Written != tc.written {
				t.Errorf("written = %v, want %v", out.Written, tc.written)
			}
		})
	}
}

// A registration whose reply was lost, with Nomad unreadable afterwards:
// nobody knows, so the charge stays and the problem says so.
func TestLeaseCreateUnknownRegistration(t *testing.T) {
	f := &flakyReadLeaseNomad{fakeLeaseNomad: fakeLeaseNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"register @0": errNomad}}}
	l := lease.Lease{Name: "ci", Namespace: "default", Duration: time.Hour}
	out, err := NewLeases(f, "berth", "raw_exec").Create(context.Background(),
		LeaseWrite{Lease: l, Reservation: testReservation, Record: func(context.Context, uint64) bool { return true }})
	if got := strings.Join(f.steps, ", "); got != "get-job, charge, sync, register @0, get-job" {
		t.Errorf("steps: %s", got)
	}
	if got := errKinds(append([]error{err}, out.Problems...)...); !slices.Equal(got, []string{"*workflow.NomadError", "*workflow.RegistrationUnknownError"}) {
		t.Errorf("errors %v", got)
	}
}

// flakyReadLeaseNomad fails every read after the first.
type flakyReadLeaseNomad struct{ fakeLeaseNomad }

func (f *flakyReadLeaseNomad) GetJob(ctx context.Context, ns, name string) (*nomadclient.Job, error) {
	if f.gets++; f.gets > 1 {
		f.steps = append(f.steps, "get-job")
		return nil, errNomad
	}
	f.steps = append(f.steps, "get-job")
	return nil, nil
}

func TestLeaseDelete(t *testing.T) {
	for name, tc := range map[string]struct {
		reservation string
		ledger      fakeLedger
		fail        map[string]error
		steps       []string
		err         string
		problems    []string
	}{
		"removed and purged":           {steps: []string{"remove purge=true"}},
		"room handed back":             {reservation: testReservation, steps: []string{"uncharge", "sync", "remove purge=true", "wait"}},
		"remove fails":                 {fail: map[string]error{"remove purge=true": errNomad}, steps: []string{"remove purge=true"}, err: "*workflow.NomadError"},
		"release fails: still removed": {reservation: testReservation, ledger: fakeLedger{unchgErr: errNomad}, steps: []string{"uncharge", "remove purge=true"}, problems: []string{"*workflow.ReleaseError"}},
	} {
		t.Run(name, func(t *testing.T) {
			ledger := tc.ledger
			f := &fakeLeaseNomad{fakeLedger: &ledger, fail: tc.fail}
			out, err := NewLeases(f, "berth", "raw_exec").Delete(context.Background(), "default", "ci", tc.reservation)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
		})
	}
}
