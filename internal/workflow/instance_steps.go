package workflow

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// InstanceCharge is what count replicas of s take from a node reservation:
// every service's cpu and memory and the group's ephemeral disk, per
// replica.
func InstanceCharge(s instance.Spec, count int) capacity.Resources {
	var per capacity.Resources
	for _, svc := range s.Services {
		per.CPU += int64(svc.CPU)
		per.MemoryMB += int64(svc.Memory)
	}
	per.DiskMB = int64(s.EphemeralDiskMB())
	return capacity.Resources{CPU: per.CPU * int64(count), MemoryMB: per.MemoryMB * int64(count), DiskMB: per.DiskMB * int64(count)}
}

// charge records what count replicas of spec take from the node
// reservation (if any) before the job is written.
func (w Instances) charge(ctx context.Context, out *InstanceOutcome, reservation string, spec instance.Spec, count int) error {
	if reservation == "" {
		return nil
	}
	ws, err := w.Charges.ChargeAndHold(ctx, reservation, nomadclient.InstanceConsumer(spec.Namespace, spec.Name), InstanceCharge(spec, count))
	out.warn(ws...)
	if err != nil {
		return &ChargeError{err}
	}
	return nil
}

// release releases the instance's charge on the node reservation (if
// any) and grows its hold back; a failure is a problem of the outcome.
func (w Instances) release(ctx context.Context, out *InstanceOutcome, reservation string, spec instance.Spec) {
	ws, err := w.Charges.ReleaseOf(ctx, reservation, "instance", nomadclient.InstanceConsumer(spec.Namespace, spec.Name))
	out.warn(ws...)
	if err != nil {
		out.Problems = append(out.Problems, err)
	}
}

// restoreCharge gives the instance back the charge it had before an update
// that wrote no job: the planned reservation's charge is released when the
// update moved it, and the old one set again.
func (w Instances) restoreCharge(ctx context.Context, out *InstanceOutcome, in InstanceWrite, had instance.Spec, count int) {
	if in.Reservation != in.HadReservation {
		w.release(ctx, out, in.Reservation, in.Want)
	}
	if err := w.charge(ctx, out, in.HadReservation, had, count); err != nil {
		out.Problems = append(out.Problems, err)
	}
}

// minMaskedSecret is the shortest secret value masked in log lines:
// masking one or two characters would garble every line and hide nothing
// (berth never logs the values; masking is a second guard).
const minMaskedSecret = 4

// writeSecrets writes the Variables of in.Want's services whose secrets
// are new or have a new version (or a new path) compared with had (nil
// when creating), before the job is registered: the task's template waits
// for its Variable. It returns what it wrote, also on failure, so a create
// that fails can delete it again. A path new to the instance is created
// where nothing is (cas=0); one it had is rewritten at the index berth
// recorded: a Variable someone else holds is never overwritten. out
// records the indexes written.
func (w Instances) writeSecrets(ctx context.Context, out *InstanceOutcome, in InstanceWrite, had *instance.Spec) ([]instance.SecretEnvRef, error) {
	if out.SecretIndexes == nil {
		out.SecretIndexes = secretIndexes(in.SecretIndexes)
	}
	want := in.Want
	refs := instance.SecretEnvPaths(want)
	if len(refs) == 0 {
		return nil, nil
	}
	old := map[string]int{}
	if had != nil {
		for _, ref := range instance.SecretEnvPaths(*had) {
			old[ref.Path] = ref.Version
		}
	}
	var masked []string
	for _, vs := range in.Secrets {
		for _, v := range vs {
			if len(v) >= minMaskedSecret {
				masked = append(masked, v)
			}
		}
	}
	ctx = tflog.MaskMessageStrings(ctx, masked...)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, masked...)
	var written []instance.SecretEnvRef
	for _, name := range slices.Sorted(maps.Keys(refs)) {
		ref := refs[name]
		if v, ok := old[ref.Path]; ok && v == ref.Version {
			continue
		}
		items := in.Secrets[name]
		if len(items) == 0 {
			return written, &SecretError{Service: name, Missing: true}
		}
		// berth's own Variable is rewritten at the index it recorded, also
		// when state no longer shows the version (a template removed in
		// Nomad reads as unset); only a path berth holds nothing at is
		// created.
		index, ok := out.SecretIndexes[ref.Path]
		if _, had := old[ref.Path]; !ok && had {
			index = nomadclient.SecretIndexUnrecorded
		}
		got, err := w.Nomad.PutSecretEnv(ctx, want.Namespace, ref.Path, items, index)
		if err != nil {
			return written, &SecretError{Service: name, Namespace: want.Namespace, Path: ref.Path, Err: err}
		}
		out.SecretIndexes[ref.Path] = got
		tflog.Info(ctx, "Wrote secrets Variable", map[string]any{"path": ref.Path, "namespace": want.Namespace,
			"version": ref.Version, "variables": len(items)})
		written = append(written, ref)
	}
	return written, nil
}

// dropSecrets deletes the Variables had's services used that want's do
// not (all of them when want is nil), once the job berth registered no
// longer reads them. One left behind is a warning after an update (its
// secrets stay in Nomad until deleted by hand) and an error on destroy,
// which then runs again.
func (w Instances) dropSecrets(ctx context.Context, out *InstanceOutcome, had instance.Spec, want *instance.Spec) {
	keep := map[string]bool{}
	if want != nil {
		for _, ref := range instance.SecretEnvPaths(*want) {
			keep[ref.Path] = true
		}
	}
	refs := instance.SecretEnvPaths(had)
	var drop []instance.SecretEnvRef
	for _, name := range slices.Sorted(maps.Keys(refs)) {
		if ref := refs[name]; !keep[ref.Path] {
			drop = append(drop, ref)
		}
	}
	w.deleteSecrets(ctx, out, had.Namespace, drop, want == nil)
}

// secretIndexes is a copy of the recorded indexes to update.
func secretIndexes(in map[string]uint64) map[string]uint64 {
	out := maps.Clone(in)
	if out == nil {
		out = map[string]uint64{}
	}
	return out
}

// recordedIndex is the index berth recorded for a Variable it wrote at
// path; none recorded (an older state) is nomadclient.SecretIndexUnrecorded.
func recordedIndex(indexes map[string]uint64, path string) uint64 {
	if i, ok := indexes[path]; ok {
		return i
	}
	return nomadclient.SecretIndexUnrecorded
}

// deleteSecrets deletes the Variables at refs, each at the index berth
// wrote it; one someone else wrote since is theirs: left, with a warning.
func (w Instances) deleteSecrets(ctx context.Context, out *InstanceOutcome, namespace string, refs []instance.SecretEnvRef, fatal bool) {
	if out.SecretIndexes == nil {
		out.SecretIndexes = map[string]uint64{}
	}
	for _, ref := range refs {
		err := w.Nomad.DeleteSecretEnv(ctx, namespace, ref.Path, recordedIndex(out.SecretIndexes, ref.Path))
		taken := isTaken(err)
		if err == nil || taken {
			delete(out.SecretIndexes, ref.Path)
		}
		if err == nil {
			tflog.Info(ctx, "Deleted secrets Variable", map[string]any{"path": ref.Path, "namespace": namespace})
			continue
		}
		out.Problems = append(out.Problems, &SecretDeleteError{Namespace: namespace, Path: ref.Path, Fatal: fatal && !taken,
			Taken: taken, Err: err})
	}
}
