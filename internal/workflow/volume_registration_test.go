package workflow

import (
	"context"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// fakeRegistrationNomad stands in for Nomad behind both registration
// workflows: it records each call and fails those named in fail; host
// and csi are the registration Nomad holds (nil: none).
type fakeRegistrationNomad struct {
	steps    []string
	fail     map[string]error
	warnings string
	host     *volume.HostRegistration
	csi      *volume.CSIRegistration
	// undoCtxErr is the error of the context the deregistration ran on
	// (an undo must outlive the operation's).
	undoCtxErr error
}

func (f *fakeRegistrationNomad) step(name string) error {
	f.steps = append(f.steps, name)
	return f.fail[name]
}

func (f *fakeRegistrationNomad) GetHostRegistration(context.Context, string, string) (*volume.HostRegistration, error) {
	return f.host, f.step("get")
}

func (f *fakeRegistrationNomad) RegisterHostVolume(_ context.Context, r *volume.HostRegistration) (string, string, error) {
	if err := f.step("register id=" + r.ID); err != nil {
		return "", "", err
	}
	if r.ID == "" {
		return "new-id", f.warnings, nil
	}
	return r.ID, f.warnings, nil
}

func (f *fakeRegistrationNomad) WaitVolumeReady(_ context.Context, _, id string) (*volume.Volume, error) {
	return &volume.Volume{ID: id}, f.step("wait-ready " + id)
}

func (f *fakeRegistrationNomad) DeregisterHostVolume(ctx context.Context, _, id string) error {
	f.undoCtxErr = ctx.Err()
	return f.step("deregister " + id)
}

func (f *fakeRegistrationNomad) WaitVolumeGone(_ context.Context, _, id string) error {
	return f.step("wait-gone " + id)
}

func (f *fakeRegistrationNomad) GetCSIRegistration(context.Context, string, string) (*volume.CSIRegistration, error) {
	return f.csi, f.step("get")
}

func (f *fakeRegistrationNomad) RegisterCSIVolume(_ context.Context, r *volume.CSIRegistration) (string, error) {
	return f.warnings, f.step("register id=" + r.ID)
}

func (f *fakeRegistrationNomad) WaitCSIVolumeUnclaimed(_ context.Context, _, id string) error {
	return f.step("wait-unclaimed " + id)
}

func (f *fakeRegistrationNomad) DeregisterCSIVolume(_ context.Context, _, id string) error {
	return f.step("deregister " + id)
}

func (f *fakeRegistrationNomad) WaitCSIVolumeGone(_ context.Context, _, id string) error {
	return f.step("wait-gone " + id)
}

// registrationCase is one run of a registration workflow against the
// fake: what it must do (wantRun) and the warnings it must give.
type registrationCase struct {
	nomad    fakeRegistrationNomad
	run      func(context.Context, *fakeRegistrationNomad) ([]Warning, error)
	steps    string
	err      string
	warnings []string
}

func (c registrationCase) check(t *testing.T) {
	t.Helper()
	f := c.nomad
	warnings, err := c.run(context.Background(), &f)
	wantRun{steps: strings.Split(c.steps, ", "), err: c.err}.check(t, f.steps, err, nil)
	var got []string
	for _, w := range warnings {
		got = append(got, w.Summary)
	}
	if strings.Join(got, ", ") != strings.Join(c.warnings, ", ") {
		t.Errorf("warnings %v, want %v", got, c.warnings)
	}
}

func TestHostRegistrations(t *testing.T) {
	reg := volume.HostRegistration{ID: "planned-id", Namespace: "default", Name: "data", NodeID: "n1", HostPath: "/srv/data"}
	create := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		id, warnings, err := HostRegistrations{Nomad: f}.Create(ctx, reg)
		if (err == nil) != (id == "new-id") {
			t.Errorf("Create gave ID %q with error %v", id, err)
		}
		return warnings, err
	}
	update := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		return HostRegistrations{Nomad: f}.Update(ctx, reg)
	}
	del := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		return nil, HostRegistrations{Nomad: f}.Delete(ctx, "default", "vol-1")
	}
	held := func(plugin string, allocs ...volume.Allocation) *volume.HostRegistration {
		return &volume.HostRegistration{ID: "vol-1", Name: "data", PluginID: plugin, Allocations: allocs}
	}
	running := volume.Allocation{ID: "a1", JobID: "app", ClientStatus: "running"}
	stopped := volume.Allocation{ID: "a2", JobID: "old", ClientStatus: "complete"}
	cases := map[string]registrationCase{
		"create: registered without an ID, then ready": {run: create, steps: "register id=, wait-ready new-id"},
		"create: Nomad's warnings are passed on": {nomad: fakeRegistrationNomad{warnings: "odd path"}, run: create,
			steps: "register id=, wait-ready new-id", warnings: []string{"Nomad warned"}},
		"create: refused, nothing to undo": {nomad: fakeRegistrationNomad{fail: map[string]error{"register id=": errNomad}}, run: create,
			steps: "register id=", err: "*workflow.WriteError"},
		"create: never ready, deregistered again": {nomad: fakeRegistrationNomad{fail: map[string]error{"wait-ready new-id": errNomad}},
			run: create, steps: "register id=, wait-ready new-id, deregister new-id", err: "*workflow.RegistrationUndoneError"},
		"create: never ready, undo fails too": {nomad: fakeRegistrationNomad{fail: map[string]error{"wait-ready new-id": errNomad, "deregister new-id": errNomad}},
			run: create, steps: "register id=, wait-ready new-id, deregister new-id", err: "*workflow.RegistrationUndoneError"},
		"update: registered again under its ID": {run: update, steps: "register id=planned-id, wait-ready planned-id"},
		"update: refused": {nomad: fakeRegistrationNomad{fail: map[string]error{"register id=planned-id": errNomad}}, run: update,
			steps: "register id=planned-id", err: "*workflow.WriteError"},
		"update: not ready is a warning": {nomad: fakeRegistrationNomad{fail: map[string]error{"wait-ready planned-id": errNomad}}, run: update,
			steps: "register id=planned-id, wait-ready planned-id", warnings: []string{"Host volume not ready"}},
		"delete: deregistered, then gone": {nomad: fakeRegistrationNomad{host: held("", stopped)}, run: del,
			steps: "get, deregister vol-1, wait-gone vol-1"},
		"delete: already gone":  {run: del, steps: "get"},
		"delete: read fails":    {nomad: fakeRegistrationNomad{fail: map[string]error{"get": errNomad}}, run: del, steps: "get", err: "*workflow.NomadError"},
		"delete: has a plugin":  {nomad: fakeRegistrationNomad{host: held("mkdir")}, run: del, steps: "get", err: "*workflow.RegistrationPluginError"},
		"delete: in use":        {nomad: fakeRegistrationNomad{host: held("", running)}, run: del, steps: "get", err: "*workflow.VolumeInUseError"},
		"delete: refused":       {nomad: fakeRegistrationNomad{host: held(""), fail: map[string]error{"deregister vol-1": errNomad}}, run: del, steps: "get, deregister vol-1", err: "*workflow.NomadError"},
		"delete: never forgets": {nomad: fakeRegistrationNomad{host: held(""), fail: map[string]error{"wait-gone vol-1": errNomad}}, run: del, steps: "get, deregister vol-1, wait-gone vol-1", err: "*workflow.NomadError"},
	}
	for name, c := range cases {
		t.Run(name, c.check)
	}
}

// TestHostRegistrations_undoOutlivesTheOperation: the operation's
// deadline passing during the wait does not stop the undo.
func TestHostRegistrations_undoOutlivesTheOperation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeRegistrationNomad{fail: map[string]error{"wait-ready new-id": context.Canceled}}
	cancel()
	_, _, err := HostRegistrations{Nomad: f}.Create(ctx, volume.HostRegistration{Namespace: "default"})
	undone, ok := err.(*RegistrationUndoneError)
	if !ok || undone.UndoErr != nil || f.undoCtxErr != nil {
		t.Fatalf("error %v (%T); the undo ran on a context that had ended: %v", err, err, f.undoCtxErr)
	}
}

func TestCSIRegistrations(t *testing.T) {
	reg := &volume.CSIRegistration{ID: "disk", Namespace: "default", ExternalID: "ext", PluginID: "p"}
	create := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		return CSIRegistrations{Nomad: f}.Create(ctx, reg)
	}
	update := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		return CSIRegistrations{Nomad: f}.Update(ctx, reg)
	}
	del := func(ctx context.Context, f *fakeRegistrationNomad) ([]Warning, error) {
		return nil, CSIRegistrations{Nomad: f}.Delete(ctx, "default", "disk")
	}
	held := func(allocs ...volume.Allocation) *volume.CSIRegistration {
		return &volume.CSIRegistration{ID: "disk", ExternalID: "other", PluginID: "p", Allocations: allocs}
	}
	running := volume.Allocation{ID: "a1", JobID: "app", ClientStatus: "running"}
	cases := map[string]registrationCase{
		"create: ID free, registered":       {run: create, steps: "get, register id=disk"},
		"create: ID taken, nothing written": {nomad: fakeRegistrationNomad{csi: held()}, run: create, steps: "get", err: "*workflow.RegistrationExistsError"},
		"create: the check fails":           {nomad: fakeRegistrationNomad{fail: map[string]error{"get": errNomad}}, run: create, steps: "get", err: "*workflow.NomadError"},
		"create: refused": {nomad: fakeRegistrationNomad{fail: map[string]error{"register id=disk": errNomad}}, run: create,
			steps: "get, register id=disk", err: "*workflow.WriteError"},
		"create: Nomad's warnings are passed on": {nomad: fakeRegistrationNomad{warnings: "capacity ignored"}, run: create,
			steps: "get, register id=disk", warnings: []string{"Nomad warned"}},
		"update: registered again": {run: update, steps: "register id=disk"},
		"update: refused": {nomad: fakeRegistrationNomad{fail: map[string]error{"register id=disk": errNomad}}, run: update,
			steps: "register id=disk", err: "*workflow.WriteError"},
		"delete: claims waited out, deregistered, gone": {nomad: fakeRegistrationNomad{csi: held()}, run: del,
			steps: "get, wait-unclaimed disk, deregister disk, wait-gone disk"},
		"delete: already gone": {run: del, steps: "get"},
		"delete: in use":       {nomad: fakeRegistrationNomad{csi: held(running)}, run: del, steps: "get", err: "*workflow.VolumeInUseError"},
		"delete: claims stay": {nomad: fakeRegistrationNomad{csi: held(), fail: map[string]error{"wait-unclaimed disk": errNomad}}, run: del,
			steps: "get, wait-unclaimed disk", err: "*workflow.NomadError"},
		"delete: refused": {nomad: fakeRegistrationNomad{csi: held(), fail: map[string]error{"deregister disk": errNomad}}, run: del,
			steps: "get, wait-unclaimed disk, deregister disk", err: "*workflow.NomadError"},
		"delete: never forgets": {nomad: fakeRegistrationNomad{csi: held(), fail: map[string]error{"wait-gone disk": errNomad}}, run: del,
			steps: "get, wait-unclaimed disk, deregister disk, wait-gone disk", err: "*workflow.NomadError"},
	}
	for name, c := range cases {
		t.Run(name, c.check)
	}
}
