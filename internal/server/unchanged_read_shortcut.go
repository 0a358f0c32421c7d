package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// An unchanged berth_instance refreshes without the framework's read pass.
//
// A refresh reads the instance's job and rebuilds its state from it; when
// they agree it answers the state it was given (sameModel). Nomad moves a
// job's modify index on every write to it (register, scale, stop, revert,
// a deployment's auto-revert), so a job still at the index a full read
// saw is the job that read saw, and that read's answer stands. After each
// full read that answered cleanly, berth records in private state what it
// saw (readSeen: the job's index, a hash of the state it answered, the
// provider build and the cluster); a refresh whose state, build, cluster
// and job still match answers with the prior state, private state and
// identity as they are, after one request that decodes only the index.
// That skips most of the plugin's CPU in a refresh plan (decoding the
// state into the model, the job into a spec, the comparison, the
// framework's semantic-equality and encoding passes).
//
// Only a full read records. An apply's state holds what the plan kept
// (UseStateForUnknown) or nulls where its read-back failed, so after an
// apply the wrapper reads the job once more through the framework and
// records only when that read answers the apply's state unchanged
// (recordApplied). A read that said anything (a diagnostic) is not
// recorded: the shortcut could not say it again.
//
// Never taken for a batch job (its completion is recorded from its
// allocations, which move without the job) or a job that refers to
// secrets Variables (Read marks it, secretEnvReadKey: they can be deleted
// and restored without the job changing), nor on import (no private
// state), nor with BERTH_SHORTCUTS=off. Every acceptance test runs with
// verify on: the framework reads as well, and any difference fails the
// test.
//
// berth_job refreshes the same way: its Read is a function of the state,
// the private state (the kept parse) and the job at its modify index
// (drift is the job compared with the jobspec), so a job still at the
// index its last full read saw reads the same again. The index is asked
// of the namespace's shared listing (nomadclient.ListedJobModifyIndex),
// so an unchanged refresh of N resources costs one listing per namespace,
// not a request per resource; a failed listing falls back to reading the
// job's own index.
type unchangedReads struct {
	typeName     string
	stateType    tftypes.Type
	identityType tftypes.Type
	// seenOf is what to record of a state the type's full read answered
	// (nil: never answered from a record).
	seenOf func(v tftypes.Value, raw []byte) *readSeen
	// moreThanJob is a private state key whose presence says the read
	// depended on more than the job ("" when none does).
	moreThanJob string
	// repeats, when set, says whether a read that answered a state with
	// its private state answers the same again for the same job.
	repeats func(state tftypes.Value, private []byte) bool
	// data is the configured provider's (nil until Configure).
	data *atomic.Pointer[shared.ProviderData]
	// build is the provider build's buildKey, recorded and compared.
	build     string
	shortcuts *shortcutSwitch
	verify    bool
	taken     atomic.Int64 // refreshes answered here, for tests
}

// readSeenKey is the private state key of readSeen.
const readSeenKey = "read_seen"

// readSeen is what the last full read of an instance saw.
type readSeen struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Index     uint64 `json:"index"`
	// State is the SHA-256 of the state it answered (msgpack), so state
	// changed any other way (state surgery, an upgrade) reads in full.
	State string `json:"state"`
	// Build is the provider build that read (buildKey): another version
	// may read the same job into other state.
	Build string `json:"build"`
	// Cluster is the Nomad client's ClusterKey (a digest of address,
	// region and TLS server name, never a credential): the same job name
	// at the same index elsewhere is another job.
	Cluster string `json:"cluster"`
	// Version is the cluster's Nomad version: berth_job's read parses its
	// jobspec with the cluster's parser, which an upgrade may change.
	Version string `json:"version,omitempty"`
}

func newUnchangedReads(data *atomic.Pointer[shared.ProviderData], version string, verify bool) (*unchangedReads, error) {
	u, err := newReadsOf(instanceDefaults, instance.Identity, data, version, verify)
	if err != nil {
		return nil, err
	}
	u.seenOf, u.moreThanJob = readSeenOf, instance.SecretEnvReadKey
	return u, nil
}

// newUnchangedJobReads is unchangedReads for berth_job.
func newUnchangedJobReads(data *atomic.Pointer[shared.ProviderData], version string, verify bool) (*unchangedReads, error) {
	u, err := newReadsOf(jobDefaults, job.Identity, data, version, verify)
	if err != nil {
		return nil, err
	}
	u.seenOf, u.repeats = jobReadSeenOf, job.ReadRepeats
	return u, nil
}

// newReadsOf is the unchanged-read shortcut of the type defaults reads,
// without its record rules.
func newReadsOf(defaults func() (*plannedType, error), identity shared.ResourceIdentity,
	data *atomic.Pointer[shared.ProviderData], version string, verify bool) (*unchangedReads, error) {
	d, err := defaults()
	if err != nil {
		return nil, fmt.Errorf("reading a resource's schema: %w", err)
	}
	it := identity.Schema().Type().TerraformType(context.Background())
	return &unchangedReads{typeName: d.typeName, stateType: d.stateType, identityType: it, data: data,
		build: buildKey(version), verify: verify}, nil
}

// answer returns the refresh of an unchanged instance, or nil when req is
// not one (then the framework reads it).
func (u *unchangedReads) answer(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	data := u.data.Load()
	if u.shortcuts.stepsAside(ctx) || data == nil || req.CurrentState == nil || len(req.CurrentState.MsgPack) == 0 ||
		u.dependsOnMore(req.Private) {
		return nil
	}
	seen, ok := privateReadSeen(req.Private)
	if !ok || seen.State != stateHash(req.CurrentState.MsgPack) || seen.Build != u.build || seen.Cluster == "" ||
		seen.Cluster != data.Nomad.ClusterKey(ctx) || seen.Version != data.Nomad.ClusterVersion(ctx) {
		return nil
	}
	index, found, err := data.Nomad.ListedJobModifyIndex(ctx, seen.Namespace, seen.Name)
	if err != nil {
		index, found, err = data.Nomad.JobModifyIndex(ctx, seen.Namespace, seen.Name)
	}
	if err != nil || !found || index != seen.Index {
		return nil // the framework's read says what changed or went wrong
	}
	identity, err := tfprotov6.NewDynamicValue(u.identityType, tftypes.NewValue(u.identityType, map[string]tftypes.Value{
		"namespace": tftypes.NewValue(tftypes.String, seen.Namespace),
		"name":      tftypes.NewValue(tftypes.String, seen.Name),
	}))
	if err != nil {
		return nil
	}
	tflog.Debug(ctx, "Job unchanged since the last read; state stands", map[string]any{"job": seen.Name, "namespace": seen.Namespace, "index": index})
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private,
		NewIdentity: &tfprotov6.ResourceIdentityData{IdentityData: &identity}}
}

// recordRead stores in resp.Private what a full read of req saw, or drops
// it when the answer is not one the shortcut may give again: a read that
// said anything (any diagnostic), was deferred, or depends on more than
// the job (secretEnvReadKey). The hash is of the bytes Terraform will send
// with the next refresh: Terraform encodes state itself (its encoder
// orders sets and numbers its own way), so when the read answers the value
// it was given, the hash is of what Terraform sent; otherwise of the
// answer, which a later full read corrects if Terraform encodes it
// differently.
func (u *unchangedReads) recordRead(ctx context.Context, req *tfprotov6.ReadResourceRequest, resp *tfprotov6.ReadResourceResponse) {
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return // Terraform keeps nothing of this answer
		}
	}
	var seen *readSeen
	if len(resp.Diagnostics) == 0 && resp.Deferred == nil && !u.dependsOnMore(resp.Private) &&
		resp.NewState != nil && len(resp.NewState.MsgPack) > 0 {
		if v, err := resp.NewState.Unmarshal(u.stateType); err == nil {
			raw := resp.NewState.MsgPack
			if req.CurrentState != nil && len(req.CurrentState.MsgPack) > 0 {
				if p, err := req.CurrentState.Unmarshal(u.stateType); err == nil && p.Equal(v) {
					raw = req.CurrentState.MsgPack
				}
			}
			if u.repeats == nil || u.repeats(v, resp.Private) {
				seen = u.stamped(ctx, u.seenOf(v, raw))
			}
		}
	}
	if out, err := withReadSeen(resp.Private, seen); err == nil {
		resp.Private = out
	}
}

// stamped is seen with the provider build and the cluster that saw it;
// nil when there is no configured provider, or no identity, to name the
// cluster.
func (u *unchangedReads) stamped(ctx context.Context, seen *readSeen) *readSeen {
	data := u.data.Load()
	if seen == nil || data == nil {
		return nil
	}
	seen.Build, seen.Cluster, seen.Version = u.build, data.Nomad.ClusterKey(ctx), data.Nomad.ClusterVersion(ctx)
	if seen.Cluster == "" {
		return nil
	}
	return seen
}

// readSeenOf is what to record for state v (msgpack raw), nil when the
// shortcut must not answer for it.
func readSeenOf(v tftypes.Value, raw []byte) *readSeen {
	var attrs map[string]tftypes.Value
	if v.IsNull() || !v.IsFullyKnown() || v.As(&attrs) != nil {
		return nil
	}
	var ns, name, typ string
	var index big.Float
	if attrs["namespace"].As(&ns) != nil || attrs["name"].As(&name) != nil || attrs["type"].As(&typ) != nil ||
		attrs["job_modify_index"].IsNull() || attrs["job_modify_index"].As(&index) != nil || typ == "batch" {
		return nil
	}
	var services map[string]tftypes.Value
	if attrs["services"].As(&services) != nil {
		return nil
	}
	for _, svc := range services {
		var fields map[string]tftypes.Value
		if svc.As(&fields) != nil || !fields["secret_env_wo_version"].IsNull() {
			return nil
		}
	}
	i, _ := index.Uint64()
	return &readSeen{Namespace: ns, Name: name, Index: i, State: stateHash(raw)}
}

// jobReadSeenOf is readSeenOf for a berth_job state: its namespace, name
// and modify index, all known.
func jobReadSeenOf(v tftypes.Value, raw []byte) *readSeen {
	var attrs map[string]tftypes.Value
	if v.IsNull() || !v.IsFullyKnown() || v.As(&attrs) != nil {
		return nil
	}
	var ns, name string
	var index big.Float
	if attrs["namespace"].As(&ns) != nil || attrs["name"].As(&name) != nil || ns == "" || name == "" ||
		attrs["job_modify_index"].IsNull() || attrs["job_modify_index"].As(&index) != nil {
		return nil
	}
	i, _ := index.Uint64()
	return &readSeen{Namespace: ns, Name: name, Index: i, State: stateHash(raw)}
}

// dependsOnMore reports whether raw private state says the read depended
// on more than the job.
func (u *unchangedReads) dependsOnMore(raw []byte) bool {
	return u.moreThanJob != "" && privateHasKey(raw, u.moreThanJob)
}

func stateHash(msgpack []byte) string {
	sum := sha256.Sum256(msgpack)
	return hex.EncodeToString(sum[:])
}

// privateHasKey reports whether raw private state (a JSON object of
// base64 values, as the protocol carries it) holds a non-empty key; true
// when it cannot be read, so the shortcut leaves it to the framework.
func privateHasKey(raw []byte, key string) bool {
	if len(raw) == 0 {
		return false
	}
	var m map[string][]byte
	return json.Unmarshal(raw, &m) != nil || len(m[key]) > 0
}

// privateReadSeen reads readSeen from raw private state (as the protocol
// carries it: a JSON object of base64 values).
func privateReadSeen(raw []byte) (readSeen, bool) {
	var m map[string][]byte
	var seen readSeen
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || len(m[readSeenKey]) == 0 || json.Unmarshal(m[readSeenKey], &seen) != nil {
		return seen, false
	}
	return seen, seen.Name != "" && seen.State != ""
}

// withReadSeen returns raw private state with readSeen set to seen
// (removed when nil).
func withReadSeen(raw []byte, seen *readSeen) ([]byte, error) {
	m := map[string][]byte{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
	}
	if seen == nil {
		if _, ok := m[readSeenKey]; !ok {
			return raw, nil
		}
		delete(m, readSeenKey)
	} else {
		b, err := json.Marshal(seen)
		if err != nil {
			return nil, err
		}
		m[readSeenKey] = b
	}
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// differences describes how the framework's refresh of an unchanged
// instance differs from the shortcut's answer; empty when they agree.
func (u *unchangedReads) differences(framework, shortcut *tfprotov6.ReadResourceResponse) []string {
	var out []string
	for _, d := range framework.Diagnostics {
		out = append(out, fmt.Sprintf("framework diagnostic %q: %s", d.Summary, d.Detail))
	}
	if framework.NewState == nil {
		return append(out, "framework read no state")
	}
	out = append(out, valueDifferences(u.stateType, framework.NewState, shortcut.NewState)...)
	if string(framework.Private) != string(shortcut.Private) {
		out = append(out, fmt.Sprintf("private state differs: shortcut %s, framework %s", shortcut.Private, framework.Private))
	}
	if !identityEqual(u.identityType, framework.NewIdentity, shortcut.NewIdentity) {
		out = append(out, "identity differs")
	}
	return out
}

func identityEqual(t tftypes.Type, a, b *tfprotov6.ResourceIdentityData) bool {
	if a == nil || b == nil || a.IdentityData == nil || b.IdentityData == nil {
		return a == b
	}
	va, err1 := a.IdentityData.Unmarshal(t)
	vb, err2 := b.IdentityData.Unmarshal(t)
	return err1 == nil && err2 == nil && va.Equal(vb)
}

// verifiedAnswer is answer in verify mode: a difference from the
// framework's read is an error diagnostic naming it (a berth bug).
func (u *unchangedReads) verifiedAnswer(framework, shortcut *tfprotov6.ReadResourceResponse) *tfprotov6.ReadResourceResponse {
	diffs := u.differences(framework, shortcut)
	if len(diffs) == 0 {
		return shortcut
	}
	framework.Diagnostics = append(framework.Diagnostics, shortcutBug("the unchanged-read shortcut disagrees with the framework", diffs))
	return framework
}
