package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// readFunc is a full read: the framework's ReadResource.
type readFunc func(context.Context, *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error)

// recordApplied stores in resp.Private what the next refresh of the state
// an apply answered may take the shortcut on, or drops any record the
// apply carried over from the plan. An apply's state is not a read's: the
// plan kept values (UseStateForUnknown keeps replicas while an autoscaler
// moves the count), and a write whose read-back failed answers nulls with
// a warning. So the record is made from a full read, the framework's, of
// the state the apply answered, and only when that read answers it
// unchanged (state, private state, identity) and says nothing; an apply
// that said anything (a warning, an error) is not read again. That read
// reads the job the apply itself read back after its write (applied), not
// Nomad again: Read is a function of the state, private state and the job
// at its modify index, and the job read back is the job at that index. So
// the check costs CPU but no request; without a read-back (none was made)
// it asks Nomad. Skipped for instances the shortcut never answers (batch,
// secrets) and with BERTH_SHORTCUTS=off. In verify mode the read asks
// Nomad too, and a different answer for the same job index is an error.
func (u *unchangedReads) recordApplied(ctx context.Context, read readFunc, req *tfprotov6.ApplyResourceChangeRequest,
	resp *tfprotov6.ApplyResourceChangeResponse, applied *shared.AppliedJob) {
	private, err := withReadSeen(resp.Private, nil)
	if err != nil {
		return // unreadable private state: never answered from (privateReadSeen)
	}
	var seen *readSeen
	if len(resp.Diagnostics) == 0 && !u.shortcuts.stepsAside(ctx) {
		seen = u.readBack(ctx, read, req, resp, private, applied)
	}
	if out, err := withReadSeen(private, seen); err == nil {
		resp.Private = out
	}
}

// readBack reads the state resp answered through read and returns what
// to record when the read answers it unchanged, else nil.
func (u *unchangedReads) readBack(ctx context.Context, read readFunc, req *tfprotov6.ApplyResourceChangeRequest,
	resp *tfprotov6.ApplyResourceChangeResponse, private []byte, appliedJob *shared.AppliedJob) *readSeen {
	if resp.NewState == nil || len(resp.NewState.MsgPack) == 0 || u.dependsOnMore(private) {
		return nil
	}
	applied, err := resp.NewState.Unmarshal(u.stateType)
	if err != nil {
		return nil
	}
	seen := u.stamped(ctx, u.seenOf(applied, resp.NewState.MsgPack))
	if seen == nil || u.repeats != nil && !u.repeats(applied, private) {
		return nil // not an instance the shortcut answers: no request
	}
	rreq := &tfprotov6.ReadResourceRequest{
		TypeName: req.TypeName, CurrentState: resp.NewState, Private: private,
		CurrentIdentity: resp.NewIdentity, ProviderMeta: req.ProviderMeta,
	}
	readCtx, reused := appliedJob.ReadBackContext(ctx)
	rr, err := read(readCtx, rreq)
	if err != nil || rr == nil || len(rr.Diagnostics) > 0 || rr.Deferred != nil || rr.NewState == nil {
		return nil
	}
	if reused && u.verify {
		if diffs := u.reuseDifferences(ctx, read, rreq, rr); len(diffs) > 0 {
			resp.Diagnostics = append(resp.Diagnostics, shortcutBug("the read of the applied job disagrees with a read of Nomad", diffs))
			return nil
		}
	}
	if v, err := rr.NewState.Unmarshal(u.stateType); err != nil || !v.Equal(applied) {
		return nil // the next refresh reads in full and answers what Nomad holds
	}
	if !samePrivate(private, rr.Private) || u.dependsOnMore(rr.Private) {
		return nil
	}
	if resp.NewIdentity != nil && rr.NewIdentity != nil && !identityEqual(u.identityType, resp.NewIdentity, rr.NewIdentity) {
		return nil
	}
	return seen
}

// reuseDifferences reads req from Nomad, as a refresh does, and names
// where that answers otherwise than reused, the read of the job the apply
// read back. A job moved since (a newer modify index) is no difference.
func (u *unchangedReads) reuseDifferences(ctx context.Context, read readFunc, req *tfprotov6.ReadResourceRequest,
	reused *tfprotov6.ReadResourceResponse) []string {
	fresh, err := read(ctx, req)
	if err != nil || fresh == nil || fresh.NewState == nil {
		return []string{fmt.Sprintf("the read of Nomad failed: %v", err)}
	}
	fv, err1 := fresh.NewState.Unmarshal(u.stateType)
	rv, err2 := reused.NewState.Unmarshal(u.stateType)
	if err1 != nil || err2 != nil {
		return []string{"a read's state does not decode"}
	}
	if f, r := u.seenOf(fv, nil), u.seenOf(rv, nil); f == nil || r == nil || f.Index != r.Index {
		return nil
	}
	diffs := u.differences(fresh, reused)
	if !samePrivate(fresh.Private, reused.Private) {
		diffs = append(diffs, "private state differs")
	}
	return diffs
}

// samePrivate reports whether two raw private states hold the same keys
// and values (the framework's encoding may order or space them otherwise).
func samePrivate(a, b []byte) bool {
	var ma, mb map[string][]byte
	if len(a) > 0 && json.Unmarshal(a, &ma) != nil || len(b) > 0 && json.Unmarshal(b, &mb) != nil || len(ma) != len(mb) {
		return false
	}
	for k, v := range ma {
		if w, ok := mb[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// buildKey names the provider build that records: its version and, when
// the binary carries them, the VCS revision it was built from and whether
// the tree was modified, so that no other build (a development build
// reports the same version) answers from its records.
func buildKey(version string) string {
	key := version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				key += "+" + s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				key += "+modified"
			}
		}
	}
	return key
}
