package workflow

import (
	"context"
	"net/http"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// The CSI half of fakeVolumeNomad: the volume GetCSIVolume returns is
// live, as for host volumes.

func (f *fakeVolumeNomad) GetCSIVolume(context.Context, string, string) (*volume.Volume, error) {
	if err := f.step("get-csi"); err != nil || f.live == nil {
		return nil, err
	}
	v := *f.live
	return &v, nil
}

func (f *fakeVolumeNomad) CreateCSIVolume(_ context.Context, v *volume.Volume) (*volume.Volume, string, error) {
	if err := f.step("create-csi"); err != nil {
		return nil, "", err
	}
	out := *v
	out.ID, out.Secrets = v.Name, nil
	return &out, "", nil
}

func (f *fakeVolumeNomad) WaitCSIVolumeReady(_ context.Context, _, id string) (*volume.Volume, error) {
	err := f.step("wait-schedulable")
	return &volume.Volume{Type: volume.TypeCSI, ID: id, State: volume.StateReady}, err
}

func (f *fakeVolumeNomad) WaitCSIVolumeUnclaimed(context.Context, string, string) error {
	return f.step("wait-unclaimed")
}

func (f *fakeVolumeNomad) DeleteCSIVolume(context.Context, string, string) error {
	return f.step("delete-csi")
}

func (f *fakeVolumeNomad) WaitCSIVolumeGone(context.Context, string, string) error {
	return f.step("wait-csi-gone")
}

func TestVolumeWritesCSI(t *testing.T) {
	lost := &nomadclient.UncertainWriteError{Err: errNomad}
	refused := nomadAnswers(t, http.StatusBadRequest, "no CSI plugin named \"nope\" could be found")
	vol := func() *volume.Volume {
		return &volume.Volume{Type: volume.TypeCSI, Namespace: "default", Name: "data", PluginID: "p",
			Capabilities: []volume.Capability{{AccessMode: "single-node-writer", AttachmentMode: "file-system"}},
			Secrets:      map[string]string{"token": "s3cr3t"}}
	}
	cases := map[string]struct {
		nomad   fakeVolumeNomad
		update  bool
		steps   []string
		err     string
		written bool
	}{
		"created through the plugin, then schedulable": {steps: []string{"get-csi", "create-csi", "wait-schedulable"}, written: true},
		"ID (the name) taken: nothing written": {nomad: fakeVolumeNomad{live: &volume.Volume{Type: volume.TypeCSI, ID: "data", Name: "data"}},
			steps: []string{"get-csi"}, err: "*workflow.VolumeExistsError"},
		"refused by Nomad":                 {nomad: fakeVolumeNomad{fail: map[string]error{"create-csi": refused}}, steps: []string{"get-csi", "create-csi"}, err: "*workflow.NomadError"},
		"answer lost: uncertain":           {nomad: fakeVolumeNomad{fail: map[string]error{"create-csi": lost}}, steps: []string{"get-csi", "create-csi"}, err: "*workflow.WriteError"},
		"never schedulable: exists anyway": {nomad: fakeVolumeNomad{fail: map[string]error{"wait-schedulable": errNomad}}, steps: []string{"get-csi", "create-csi", "wait-schedulable"}, written: true},
		"no in-place update":               {update: true, err: "*workflow.NomadError"},
		"existence check fails":            {nomad: fakeVolumeNomad{fail: map[string]error{"get-csi": errNomad}}, steps: []string{"get-csi"}, err: "*workflow.NomadError"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			f.fakeLedger = &fakeLedger{}
			w := NewVolumes(&f, "berth")
			run := w.Create
			if tc.update {
				run = w.Update
			}
			out, err := run(context.Background(), VolumeWrite{Volume: vol()})
			wantRun{tc.steps, tc.err, nil}.check(t, f.steps, err, out.Problems)
			if (out.Written != nil) != tc.written {
				t.Errorf("written = %v, want %v", out.Written != nil, tc.written)
			}
			if out.Written != nil && out.Written.Secrets != nil {
				t.Errorf("the written volume carries secrets back: %v", out.Written.Secrets)
			}
		})
	}
}

func TestVolumeDeleteCSI(t *testing.T) {
	csi := func(claims int, status string) *volume.Volume {
		v := &volume.Volume{Type: volume.TypeCSI, ID: "data", Name: "data", Claims: claims}
		if status != "" {
			v.Allocations = []volume.Allocation{{ID: "a1", Name: "web[0]", JobID: "web", ClientStatus: status}}
		}
		return v
	}
	in := VolumeDelete{Type: volume.TypeCSI, Namespace: "default", ID: "data", Name: "data"}
	cases := map[string]struct {
		nomad fakeVolumeNomad
		in    VolumeDelete
		steps []string
		err   string
	}{
		"deleted through the plugin, then gone": {nomad: fakeVolumeNomad{live: csi(0, "")},
			steps: []string{"get-csi", "delete-csi", "wait-csi-gone"}},
		"already gone":                {steps: []string{"get-csi"}},
		"claimed by a running alloc":  {nomad: fakeVolumeNomad{live: csi(1, "running")}, steps: []string{"get-csi"}, err: "*workflow.VolumeInUseError"},
		"forced, still refused":       {in: VolumeDelete{Type: volume.TypeCSI, ID: "data", Force: true}, nomad: fakeVolumeNomad{live: csi(1, "running")}, steps: []string{"get-csi"}, err: "*workflow.VolumeInUseError"},
		"claim of a stopped alloc":    {nomad: fakeVolumeNomad{live: csi(1, "complete")}, steps: []string{"get-csi", "wait-unclaimed", "delete-csi", "wait-csi-gone"}},
		"claim never released":        {nomad: fakeVolumeNomad{live: csi(1, "complete"), fail: map[string]error{"wait-unclaimed": errNomad}}, steps: []string{"get-csi", "wait-unclaimed"}, err: "*workflow.NomadError"},
		"delete refused by Nomad":     {nomad: fakeVolumeNomad{live: csi(0, ""), fail: map[string]error{"delete-csi": errNomad}}, steps: []string{"get-csi", "delete-csi"}, err: "*workflow.NomadError"},
		"found by name without an ID": {in: VolumeDelete{Type: volume.TypeCSI, Name: "data"}, nomad: fakeVolumeNomad{live: csi(0, "")}, steps: []string{"get-csi", "delete-csi", "wait-csi-gone"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			f.fakeLedger = &fakeLedger{}
			d := tc.in
			if d.Type == "" {
				d = in
			}
			out, err := NewVolumes(&f, "berth").Delete(context.Background(), d)
			wantRun{tc.steps, tc.err, nil}.check(t, f.steps, err, out.Problems)
		})
	}
}
