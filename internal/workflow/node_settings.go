package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// NodeSettingsNomad is what berth_node_settings' writes need of Nomad;
// *nomadclient.Client has it.
type NodeSettingsNomad interface {
	GetNodeSettings(ctx context.Context, id string) (*nomadclient.NodeSettings, error)
	NodeDynamicMeta(ctx context.Context, id string) (map[string]string, error)
	ApplyNodeMeta(ctx context.Context, id string, changes map[string]*string) error
	SetNodeEligibility(ctx context.Context, id string, eligible bool) error
	StartDrain(ctx context.Context, id string, spec nomadclient.DrainSpec) ([]string, error)
	StopDrain(ctx context.Context, id string, eligible bool) error
	WaitDrained(ctx context.Context, id string, began []string) ([]nomadclient.StrandedAllocation, error)
}

// NodeSettings runs berth_node_settings' writes: metadata, then drain (and
// its wait) or eligibility; and on destroy, the node put back as berth
// found it. A node is never deleted.
type NodeSettings struct{ Nomad NodeSettingsNomad }

// NodeSettingsSpec is what berth manages on a node: nil Eligible and Drain
// are not managed; Meta holds only the keys berth owns.
type NodeSettingsSpec struct {
	Eligible *bool
	Drain    *nomadclient.DrainSpec
	Meta     map[string]string
}

// NodeFound is how berth found the node, which destroy puts back: its
// eligibility (when berth manages it: ManagesEligibility), and the dynamic
// value of each metadata key berth set before berth set it (nil: the key
// had none).
type NodeFound struct {
	Eligible           bool               `json:"eligible"`
	ManagesEligibility bool               `json:"manages_eligibility,omitempty"`
	Meta               map[string]*string `json:"meta,omitempty"`
}

// NodeSettingsWrite is one create (Had and Found nil) or update.
type NodeSettingsWrite struct {
	NodeID string
	Want   NodeSettingsSpec
	Had    *NodeSettingsSpec
	Found  *NodeFound
}

// NodeSettingsOutcome is what a write did: Found is what destroy will put
// back (recorded even when a later step failed).
type NodeSettingsOutcome struct {
	Found NodeFound
	Steps []string
}

// DrainStrandedError is a drain whose deadline passed with allocations
// Nomad could not move to another node: it stopped them, and their jobs
// are short of them until room appears.
type DrainStrandedError struct {
	NodeID   string
	Stranded []nomadclient.StrandedAllocation
}

func (e *DrainStrandedError) Error() string {
	lines := make([]string, len(e.Stranded))
	for i, a := range e.Stranded {
		lines[i] = a.String()
	}
	return fmt.Sprintf("the drain of node %s ended with %d allocation(s) stopped that could not move to another node: %s",
		e.NodeID, len(e.Stranded), strings.Join(lines, "; "))
}

// DrainUnfinishedError is a drain the apply stopped waiting for (its
// deadline, or a read that failed): the drain goes on in Nomad.
type DrainUnfinishedError struct {
	NodeID string
	Err    error
}

func (e *DrainUnfinishedError) Error() string {
	return fmt.Sprintf("the drain of node %s did not end: %v", e.NodeID, e.Err)
}
func (e *DrainUnfinishedError) Unwrap() error { return e.Err }

// Apply brings the node to in.Want.
func (w NodeSettings) Apply(ctx context.Context, in NodeSettingsWrite) (NodeSettingsOutcome, error) {
	var out NodeSettingsOutcome
	cur, err := w.Nomad.GetNodeSettings(ctx, in.NodeID)
	if err != nil {
		return out, &NomadError{Summary: "Could not read the node", Err: err}
	}
	if in.Found != nil {
		out.Found = NodeFound{Eligible: in.Found.Eligible, Meta: maps.Clone(in.Found.Meta)}
	} else {
		out.Found = NodeFound{Eligible: cur.Eligible || cur.Drain != nil}
	}
	if out.Found.Meta == nil {
		out.Found.Meta = map[string]*string{}
	}
	out.Found.ManagesEligibility = in.Want.Eligible != nil || in.Want.Drain != nil
	var had NodeSettingsSpec
	if in.Had != nil {
		had = *in.Had
	}
	if err := w.applyMeta(ctx, &out, in, had); err != nil {
		return out, err
	}
	eligibleNow := cur.Eligible
	drained := had.Drain != nil && cur.Drain == nil && !cur.Eligible // by an earlier apply
	switch {
	case in.Want.Drain != nil && !drained:
		// Not drained yet (or a drain in progress, whose spec this
		// updates): drain and wait for it.
		out.Steps = append(out.Steps, "drain")
		began, err := w.Nomad.StartDrain(ctx, in.NodeID, *in.Want.Drain)
		if err != nil {
			return out, &NomadError{Summary: "Could not drain the node", Err: err}
		}
		stranded, err := w.Nomad.WaitDrained(ctx, in.NodeID, began)
		if err != nil {
			return out, &DrainUnfinishedError{NodeID: in.NodeID, Err: err}
		}
		if len(stranded) > 0 {
			return out, &DrainStrandedError{NodeID: in.NodeID, Stranded: stranded}
		}
		return out, nil
	case in.Want.Drain != nil:
		return out, nil // drained by an earlier apply, and still ineligible
	case had.Drain != nil:
		// Drain turned off: the node is eligible again if it was when
		// berth found it, or as configured.
		eligible := out.Found.Eligible
		if in.Want.Eligible != nil {
			eligible = *in.Want.Eligible
		}
		out.Steps = append(out.Steps, "stop drain")
		if err := w.Nomad.StopDrain(ctx, in.NodeID, eligible); err != nil {
			return out, &NomadError{Summary: "Could not end the node's drain", Err: err}
		}
		eligibleNow = eligible || (eligibleNow && cur.Drain == nil)
	}
	if in.Want.Eligible != nil && *in.Want.Eligible != eligibleNow {
		out.Steps = append(out.Steps, "eligibility")
		if err := w.Nomad.SetNodeEligibility(ctx, in.NodeID, *in.Want.Eligible); err != nil {
			return out, &NomadError{Summary: "Could not set the node's eligibility", Err: err}
		}
	}
	return out, nil
}

// applyMeta sets the keys berth owns that differ, records the value each
// newly owned key had, and puts back keys berth no longer owns.
func (w NodeSettings) applyMeta(ctx context.Context, out *NodeSettingsOutcome, in NodeSettingsWrite, had NodeSettingsSpec) error {
	if len(in.Want.Meta) == 0 && len(had.Meta) == 0 {
		return nil
	}
	dynamic, err := w.Nomad.NodeDynamicMeta(ctx, in.NodeID)
	if err != nil {
		return &NomadError{Summary: "Could not read the node's metadata", Err: err}
	}
	changes := map[string]*string{}
	for _, k := range slices.Sorted(maps.Keys(in.Want.Meta)) {
		v := in.Want.Meta[k]
		if _, owned := out.Found.Meta[k]; !owned {
			_, ownedBefore := had.Meta[k]
			if !ownedBefore {
				out.Found.Meta[k] = valueOrNil(dynamic, k)
			}
		}
		if got, ok := dynamic[k]; !ok || got != v {
			changes[k] = &v
		}
	}
	for k := range had.Meta {
		if _, still := in.Want.Meta[k]; still {
			continue
		}
		changes[k] = out.Found.Meta[k]
		delete(out.Found.Meta, k)
	}
	if len(changes) == 0 {
		return nil
	}
	out.Steps = append(out.Steps, "meta")
	if err := w.Nomad.ApplyNodeMeta(ctx, in.NodeID, changes); err != nil {
		return &NomadError{Summary: "Could not set the node's metadata", Err: err}
	}
	return nil
}

func valueOrNil(m map[string]string, k string) *string {
	if v, ok := m[k]; ok {
		return &v
	}
	return nil
}

// Restore puts the node back as berth found it: a drain berth started
// ended, the eligibility berth changed restored, and each metadata key
// berth set given back the value it had (or removed). A node that is gone
// has nothing to put back.
func (w NodeSettings) Restore(ctx context.Context, nodeID string, had NodeSettingsSpec, found NodeFound) (NodeSettingsOutcome, error) {
	out := NodeSettingsOutcome{Found: found}
	cur, err := w.Nomad.GetNodeSettings(ctx, nodeID)
	var notFound *nomadclient.NodeNotFoundError
	if errors.As(err, &notFound) {
		return out, nil
	}
	if err != nil {
		return out, &NomadError{Summary: "Could not read the node", Err: err}
	}
	switch {
	case had.Drain != nil:
		out.Steps = append(out.Steps, "stop drain")
		if err := w.Nomad.StopDrain(ctx, nodeID, found.Eligible); err != nil {
			return out, &NomadError{Summary: "Could not end the node's drain", Err: err}
		}
	case found.ManagesEligibility && cur.Drain == nil && cur.Eligible != found.Eligible:
		out.Steps = append(out.Steps, "eligibility")
		if err := w.Nomad.SetNodeEligibility(ctx, nodeID, found.Eligible); err != nil {
			return out, &NomadError{Summary: "Could not restore the node's eligibility", Err: err}
		}
	}
	if len(had.Meta) > 0 {
		changes := make(map[string]*string, len(had.Meta))
		for k := range had.Meta {
			changes[k] = found.Meta[k]
		}
		out.Steps = append(out.Steps, "meta")
		if err := w.Nomad.ApplyNodeMeta(ctx, nodeID, changes); err != nil {
			return out, &NomadError{Summary: "Could not restore the node's metadata", Err: err}
		}
	}
	return out, nil
}
