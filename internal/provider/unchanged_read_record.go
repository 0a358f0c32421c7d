package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
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
// that said anything (a warning, an error) is not read again. One more
// read of the job per applied instance, skipped for instances the
// shortcut never answers (batch, secrets) and with BERTH_SHORTCUTS=off.
func (u *unchangedReads) recordApplied(ctx context.Context, read readFunc, req *tfprotov6.ApplyResourceChangeRequest,
	resp *tfprotov6.ApplyResourceChangeResponse) {
	private, err := withReadSeen(resp.Private, nil)
	if err != nil {
		return // unreadable private state: never answered from (privateReadSeen)
	}
	var seen *readSeen
	if len(resp.Diagnostics) == 0 && !u.shortcuts.stepsAside(ctx) {
		seen = u.readBack(ctx, read, req, resp, private)
	}
	if out, err := withReadSeen(private, seen); err == nil {
		resp.Private = out
	}
}

// readBack reads the state resp answered through read and returns what
// to record when the read answers it unchanged, else nil.
func (u *unchangedReads) readBack(ctx context.Context, read readFunc, req *tfprotov6.ApplyResourceChangeRequest,
	resp *tfprotov6.ApplyResourceChangeResponse, private []byte) *readSeen {
	if resp.NewState == nil || len(resp.NewState.MsgPack) == 0 || privateHasKey(private, instance.SecretEnvReadKey) {
		return nil
	}
	applied, err := resp.NewState.Unmarshal(u.stateType)
	if err != nil {
		return nil
	}
	seen := u.stamped(readSeenOf(applied, resp.NewState.MsgPack))
	if seen == nil {
		return nil // not an instance the shortcut answers: no request
	}
	rr, err := read(ctx, &tfprotov6.ReadResourceRequest{
		TypeName: req.TypeName, CurrentState: resp.NewState, Private: private,
		CurrentIdentity: resp.NewIdentity, ProviderMeta: req.ProviderMeta,
	})
	if err != nil || rr == nil || len(rr.Diagnostics) > 0 || rr.Deferred != nil || rr.NewState == nil {
		return nil
	}
	if v, err := rr.NewState.Unmarshal(u.stateType); err != nil || !v.Equal(applied) {
		return nil // the next refresh reads in full and answers what Nomad holds
	}
	if !samePrivate(private, rr.Private) || privateHasKey(rr.Private, instance.SecretEnvReadKey) {
		return nil
	}
	if resp.NewIdentity != nil && rr.NewIdentity != nil && !identityEqual(u.identityType, resp.NewIdentity, rr.NewIdentity) {
		return nil
	}
	return seen
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
