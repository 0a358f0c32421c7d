package workflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// fakeVolumeNomad stands in for Nomad behind the volume workflow, as
// fakeInstanceNomad does for instances.
type fakeVolumeNomad struct {
	*fakeLedger
	fail    map[string]error
	named   []volume.Summary
	live    *volume.Volume // what GetVolume and FindVolume return
	resized bool           // GetVolume after a lost resize: already resized
	// unreachable is how many deletes Nomad refuses (unreachableErr)
	// because it cannot reach the volume's node.
	unreachable    int
	unreachableErr error
}

func (f *fakeVolumeNomad) step(name string) error {
	f.steps = append(f.steps, name)
	return f.fail[name]
}

func (f *fakeVolumeNomad) VolumesNamed(context.Context, string, string) ([]volume.Summary, error) {
	return f.named, f.step("volumes-named")
}

func (f *fakeVolumeNomad) GetVolume(_ context.Context, _, id string) (*volume.Volume, error) {
	if err := f.step("get-volume"); err != nil || f.live == nil {
		return nil, err
	}
	v := *f.live
	if f.resized {
		v.CapacityMaxBytes = 2 << 30
	}
	return &v, nil
}

func (f *fakeVolumeNomad) FindVolume(context.Context, string, string) (*volume.Volume, error) {
	return f.live, f.step("find-volume")
}

func (f *fakeVolumeNomad) CreateVolume(_ context.Context, v *volume.Volume) (*volume.Volume, string, error) {
	if err := f.step("create"); err != nil {
		return nil, "", err
	}
	out := *v
	if out.ID == "" {
		out.ID = "vol-1"
	}
	return &out, "", nil
}

func (f *fakeVolumeNomad) WaitVolumeReady(_ context.Context, _, id string) (*volume.Volume, error) {
	err := f.step("wait-ready")
	return &volume.Volume{ID: id, State: "ready"}, err
}

func (f *fakeVolumeNomad) DeleteVolume(_ context.Context, _, _ string, force bool) error {
	err := f.step(fmt.Sprintf("delete force=%t", force))
	if err == nil && !force && f.unreachable > 0 {
		f.unreachable--
		return f.unreachableErr
	}
	return err
}

// WaitNodeReady answers at the next index, as Nomad's blocking read of a
// node that changed.
func (f *fakeVolumeNomad) WaitNodeReady(_ context.Context, node string, index uint64) (uint64, error) {
	return index + 1, f.step(fmt.Sprintf("wait-node %s after=%d", node, index))
}

func (f *fakeVolumeNomad) WaitVolumeGone(context.Context, string, string) error {
	return f.step("wait-gone")
}

func TestVolumeWrites(t *testing.T) {
	lost := &nomadclient.UncertainWriteError{Err: errNomad}
	refused := nomadAnswers(t, http.StatusBadRequest, "capacity_max below capacity_min")
	taken := nomadAnswers(t, http.StatusInternalServerError, "HostVolume.Create error: volume name already exists on this node")
	vol := func() *volume.Volume {
		return &volume.Volume{Namespace: "default", Name: "data", CapacityMaxBytes: 1 << 30}
	}
	existing := func() *volume.Volume { v := vol(); v.ID = "vol-1"; return v }
	create := VolumeWrite{Volume: vol(), Reservation: testReservation, DiskMB: 1024}
	resize := VolumeWrite{Volume: func() *volume.Volume { v := existing(); v.CapacityMaxBytes = 2 << 30; return v }(),
		Reservation: testReservation, DiskMB: 2048, HadDiskMB: 1024}
	cases := map[string]struct {
		nomad    fakeVolumeNomad
		update   bool
		in       VolumeWrite
		steps    []string
		err      string
		problems []string
		written  bool
	}{
		"created and ready": {in: VolumeWrite{Volume: vol()}, steps: []string{"volumes-named", "create", "wait-ready"}, written: true},
		"charged before the create": {in: create,
			steps: []string{"volumes-named", "charge", "sync", "create", "wait-ready"}, written: true},
		"name taken: nothing written": {in: create, nomad: fakeVolumeNomad{named: []volume.Summary{{ID: "vol-0", Name: "data"}}},
			steps: []string{"volumes-named"}, err: "*workflow.VolumeExistsError"},
		"charge refused: nothing created": {in: create, nomad: fakeVolumeNomad{fakeLedger: &fakeLedger{chargeErr: errNomad}},
			steps: []string{"volumes-named", "charge"}, err: "*workflow.ChargeError"},
		"refused: the charge released": {in: create, nomad: fakeVolumeNomad{fail: map[string]error{"create": refused}},
			steps: []string{"volumes-named", "charge", "sync", "create", "uncharge", "sync"}, err: "*workflow.NomadError"},
		"name left on the node by a crash: the charge released": {in: create, nomad: fakeVolumeNomad{fail: map[string]error{"create": taken}},
			steps: []string{"volumes-named", "charge", "sync", "create", "uncharge", "sync"}, err: "*workflow.VolumeNameTakenOnNodeError"},
		"answer lost: the charge stays": {in: create, nomad: fakeVolumeNomad{fail: map[string]error{"create": lost}},
			steps: []string{"volumes-named", "charge", "sync", "create"}, err: "*workflow.WriteError"},
		"refused, and the release fails too": {in: create,
			nomad: fakeVolumeNomad{fail: map[string]error{"create": refused}, fakeLedger: &fakeLedger{unchgErr: errNomad}},
			steps: []string{"volumes-named", "charge", "sync", "create", "uncharge"}, err: "*workflow.NomadError",
			problems: []string{"*workflow.ReleaseError"}},
		"never ready: the volume exists all the same": {in: create, nomad: fakeVolumeNomad{fail: map[string]error{"wait-ready": errNomad}},
			steps: []string{"volumes-named", "charge", "sync", "create", "wait-ready"}, written: true},
		"resized: charged first": {update: true, in: resize, steps: []string{"charge", "sync", "create", "wait-ready"}, written: true},
		"parameters only: no charge": {update: true, in: VolumeWrite{Volume: existing(), Reservation: testReservation, DiskMB: 1024, HadDiskMB: 1024},
			steps: []string{"create", "wait-ready"}, written: true},
		"resize refused: the old charge restored": {update: true, in: resize, nomad: fakeVolumeNomad{fail: map[string]error{"create": refused}},
			steps: []string{"charge", "sync", "create", "charge", "sync"}, err: "*workflow.NomadError"},
		"resize answer lost, resized in Nomad: the charge stays": {update: true, in: resize,
			nomad: fakeVolumeNomad{fail: map[string]error{"create": lost}, live: existing(), resized: true},
			steps: []string{"charge", "sync", "create", "get-volume"}, err: "*workflow.WriteError"},
		"resize answer lost, not resized: the old charge restored": {update: true, in: resize,
			nomad: fakeVolumeNomad{fail: map[string]error{"create": lost}, live: existing()},
			steps: []string{"charge", "sync", "create", "get-volume", "charge", "sync"}, err: "*workflow.NomadError"},
		"resize answer lost, volume unreadable: the charge stays": {update: true, in: resize,
			nomad: fakeVolumeNomad{fail: map[string]error{"create": lost, "get-volume": errNomad}},
			steps: []string{"charge", "sync", "create", "get-volume"}, err: "*workflow.WriteError"},
		"old charge cannot be restored: a problem": {update: true, in: resize,
			nomad: fakeVolumeNomad{fail: map[string]error{"create": refused}, fakeLedger: &fakeLedger{failCharge: 2}},
			steps: []string{"charge", "sync", "create", "charge"}, err: "*workflow.NomadError", problems: []string{"*workflow.ReleaseError"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			w := NewVolumes(&f, "berth")
			run := w.Create
			if tc.update {
				run = w.Update
			}
			out, err := run(context.Background(), tc.in)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
			if (out.Written != nil) != tc.written {
				t.Errorf("written = %v, want %v", out.Written != nil, tc.written)
			}
		})
	}
}

func TestVolumeDelete(t *testing.T) {
	inUse := &volume.Volume{ID: "vol-1", Name: "data", Allocations: []volume.Allocation{{ID: "a1", JobID: "web", ClientStatus: "running"}}}
	idle := &volume.Volume{ID: "vol-1", Name: "data", NodeID: "node-1"}
	byID := VolumeDelete{Namespace: "default", ID: "vol-1", Name: "data", Reservation: testReservation}
	down := &nomadclient.NodeNotReadyError{ID: "node-1", Name: "n1", Status: "down", Err: context.DeadlineExceeded}
	cases := map[string]struct {
		nomad    fakeVolumeNomad
		in       VolumeDelete
		steps    []string
		err      string
		problems []string
	}{
		"deleted, then the disk released": {in: byID, nomad: fakeVolumeNomad{live: idle},
			steps: []string{"get-volume", "delete force=false", "wait-gone", "uncharge", "sync"}},
		"found by name when the create lost its ID": {in: VolumeDelete{Namespace: "default", Name: "data"}, nomad: fakeVolumeNomad{live: idle},
			steps: []string{"find-volume", "delete force=false", "wait-gone"}},
		"already gone: only the charge": {in: byID, steps: []string{"get-volume", "uncharge", "sync"}},
		"in use: refused, nothing changed": {in: byID, nomad: fakeVolumeNomad{live: inUse},
			steps: []string{"get-volume"}, err: "*workflow.VolumeInUseError"},
		"in use, forced": {in: func() VolumeDelete { in := byID; in.Force = true; return in }(), nomad: fakeVolumeNomad{live: inUse},
			steps: []string{"get-volume", "delete force=true", "wait-gone", "uncharge", "sync"}},
		"delete refused: the charge stays": {in: byID, nomad: fakeVolumeNomad{live: idle, fail: map[string]error{"delete force=false": errNomad}},
			steps: []string{"get-volume", "delete force=false"}, err: "*workflow.NomadError"},
		"never gone: the charge stays": {in: byID, nomad: fakeVolumeNomad{live: idle, fail: map[string]error{"wait-gone": errNomad}},
			steps: []string{"get-volume", "delete force=false", "wait-gone"}, err: "*workflow.NomadError"},
		"release fails: a problem": {in: byID, nomad: fakeVolumeNomad{live: idle, fakeLedger: &fakeLedger{unchgErr: errNomad}},
			steps: []string{"get-volume", "delete force=false", "wait-gone", "uncharge"}, problems: []string{"*workflow.ReleaseError"}},
		"node unreachable: waits until it is ready, then deleted": {in: byID, nomad: fakeVolumeNomad{live: idle, unreachable: 1},
			steps: []string{"get-volume", "delete force=false", "wait-node node-1 after=0", "delete force=false", "wait-gone", "uncharge", "sync"}},
		"node reads ready yet unreachable: the next wait blocks on its index": {in: byID, nomad: fakeVolumeNomad{live: idle, unreachable: 2},
			steps: []string{"get-volume", "delete force=false", "wait-node node-1 after=0", "delete force=false",
				"wait-node node-1 after=1", "delete force=false", "wait-gone", "uncharge", "sync"}},
		"node never ready: nothing forced, the charge stays": {in: byID,
			nomad: fakeVolumeNomad{live: idle, unreachable: 1, fail: map[string]error{"wait-node node-1 after=0": down}},
			steps: []string{"get-volume", "delete force=false", "wait-node node-1 after=0"}, err: "*workflow.NomadError"},
		"node gone: nothing forced, the charge stays": {in: byID, nomad: fakeVolumeNomad{live: idle, unreachable: 1,
			fail: map[string]error{"wait-node node-1 after=0": &nomadclient.NodeNotFoundError{By: "id", Value: "node-1"}}},
			steps: []string{"get-volume", "delete force=false", "wait-node node-1 after=0"}, err: "*workflow.NomadError"},
		"forced: no wait for the node": {in: func() VolumeDelete { in := byID; in.Force = true; return in }(),
			nomad: fakeVolumeNomad{live: idle, unreachable: 1},
			steps: []string{"get-volume", "delete force=true", "wait-gone", "uncharge", "sync"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			if f.fakeLedger == nil {
				f.fakeLedger = &fakeLedger{}
			}
			f.unreachableErr = errUnreachable(t)
			out, err := NewVolumes(&f, "berth").Delete(context.Background(), tc.in)
			wantRun{tc.steps, tc.err, tc.problems}.check(t, f.steps, err, out.Problems)
		})
	}
}

// errUnreachable is DeleteVolume's error for Nomad's refusal to delete a
// volume whose node it cannot reach.
func errUnreachable(t *testing.T) error {
	return &nomadclient.VolumeNodeUnreachableError{
		Err: nomadAnswers(t, http.StatusInternalServerError, "volume cannot be removed from unknown node without force=true")}
}

// TestVolumeDeleteNodeDownSaysWhatToDo: a node that does not come back
// ends the delete with what happened, Nomad's words and the way out.
func TestVolumeDeleteNodeDownSaysWhatToDo(t *testing.T) {
	for name, tc := range map[string]struct {
		wait error
		want []string
	}{
		"not ready": {&nomadclient.NodeNotReadyError{ID: "node-1", Name: "n1", Status: "down", Err: context.DeadlineExceeded},
			[]string{`node n1 (node-1) is not ready (status "down")`, "Bring the node back", "timeouts.delete"}},
		"gone":       {&nomadclient.NodeNotFoundError{By: "id", Value: "node-1"}, []string{"no longer known to Nomad"}},
		"read fails": {errNomad, []string{"Reading the volume's node node-1", errNomad.Error()}},
	} {
		t.Run(name, func(t *testing.T) {
			f := fakeVolumeNomad{fakeLedger: &fakeLedger{}, live: &volume.Volume{ID: "vol-1", Name: "data", NodeID: "node-1"},
				unreachable: 1, unreachableErr: errUnreachable(t), fail: map[string]error{"wait-node node-1 after=0": tc.wait}}
			_, err := NewVolumes(&f, "berth").Delete(context.Background(), VolumeDelete{Namespace: "default", ID: "vol-1"})
			var downErr *VolumeNodeDownError
			if !errors.As(err, &downErr) || downErr.Wait != tc.wait {
				t.Fatalf("error %v, want a *VolumeNodeDownError carrying the wait's error", err)
			}
			want := append([]string{"volume cannot be removed from unknown node without force=true"}, tc.want...)
			if name != "read fails" {
				want = append(want, "force_destroy = true", "nomad volume delete -type=host -force -namespace=default vol-1")
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestVolumeNameTakenOnNodeIsNomadsAnswerOnly(t *testing.T) {
	for _, err := range []error{nomadAnswers(t, http.StatusInternalServerError, "boom"), errors.New("volume name already exists")} {
		f := fakeVolumeNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"create": err}}
		_, got := NewVolumes(&f, "berth").Create(context.Background(), VolumeWrite{Volume: &volume.Volume{Name: "data"}})
		var taken *VolumeNameTakenOnNodeError
		if errors.As(got, &taken) {
			t.Errorf("%v read as a name taken on the node", err)
		}
	}
}
