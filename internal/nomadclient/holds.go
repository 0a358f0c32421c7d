package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// HoldState is what Nomad's scheduler holds for one node reservation after
// SyncHold.
type HoldState struct {
	// JobID is the hold job's ID, set whether or not the job exists.
	JobID string
	// Held is what the hold job takes on the node; zero without a hold.
	Held capacity.Resources
	// Unheld is the unused budget no hold can keep from other jobs (below
	// Nomad's minimum task size); zero when the hold covers it.
	Unheld capacity.Resources
	// NotPlaced, when set, says the scheduler could not place the hold:
	// something outside the ledger holds that capacity. Nomad keeps the
	// hold's evaluation blocked and places it as soon as there is room.
	NotPlaced string
	// Grew says the hold was made larger in some dimension: a hold that
	// grows while its consumer still gives the room back is expected to
	// wait (NotPlaced) until the consumer's allocations stop.
	Grew bool
}

// syncHoldRounds bounds how often SyncHold starts over because the ledger
// moved while it wrote the hold.
const syncHoldRounds = 6

// SyncHold brings the hold job of node reservation name on nodeID in line
// with the ledger in namespace ns: registered and sized to the
// reservation's unused budget, or removed when the reservation is gone or
// there is nothing Nomad can hold. It is idempotent, so any write that
// follows a crash heals what the crash left behind.
//
// It waits for the scheduler to act on the change: a consumer registered
// after SyncHold returns fits where the hold gave way. Concurrent writers
// converge because every round ends by checking that the ledger it sized
// the hold from is still current; if not, it sizes the hold again.
func (c *Client) SyncHold(ctx context.Context, ns, nodeID, name string) (HoldState, error) {
	st := HoldState{JobID: hold.JobID(nodeID, name)}
	for round := 0; round < syncHoldRounds; round++ {
		cur, err := c.ReadLedger(ctx, ns, nodeID)
		if err != nil {
			return st, err
		}
		l, err := ledger.Decode(nodeID, cur.Items)
		if err != nil {
			return st, err
		}
		spec, exists, err := c.holdSpec(ns, l, name)
		if err != nil {
			return st, err
		}
		st.Held, st.Unheld, st.NotPlaced = spec.Held, hold.Unheld(unusedOf(l, name)), ""
		evalID, conflict, grew, err := c.writeHold(ctx, spec, exists)
		st.Grew = grew
		if err != nil {
			return st, err
		}
		if conflict {
			continue // another writer moved the hold: size it again
		}
		if evalID != "" {
			var rollout *RolloutError
			switch err := c.waitPlaced(ctx, ns, st.JobID, evalID); {
			case errors.As(err, &rollout):
				st.NotPlaced = rollout.Error()
			case err != nil:
				return st, fmt.Errorf("waiting for the scheduler to act on hold job %q: %w", st.JobID, err)
			}
			// Nomad counts a replaced allocation against its node until
			// the client reports it stopped, so the room is free only then.
			replaced := func(a *api.AllocationListStub) bool { return a.DesiredStatus != api.AllocDesiredStatusRun }
			if err := c.waitStopped(ctx, ns, st.JobID, replaced); err != nil {
				return st, fmt.Errorf("waiting for the replaced allocation of hold job %q to stop: %w", st.JobID, err)
			}
		}
		again, err := c.ReadLedger(ctx, ns, nodeID)
		if err != nil {
			return st, err
		}
		if again.ModifyIndex == cur.ModifyIndex {
			return st, nil
		}
	}
	return st, fmt.Errorf("node %s: the hold of reservation %q could not be brought in line with its ledger, which kept changing: %w",
		idPrefix(nodeID), name, ErrLedgerContention)
}

// holdSpec is the hold job reservation name in l asks for, and whether
// the reservation exists (a hold without one is removed).
func (c *Client) holdSpec(ns string, l ledger.Ledger, name string) (hold.Spec, bool, error) {
	spec := hold.Spec{Namespace: ns, NodeID: l.NodeID, Name: name, Driver: c.holdDriver}
	r, ok := l.Reservations[name]
	if !ok {
		return spec, false, nil
	}
	item, err := ledger.EncodeItem(name, r)
	if err != nil {
		return spec, true, err
	}
	spec.Item = item
	spec.Held, _ = hold.Size(r.Remaining())
	return spec, true, nil
}

// unusedOf is reservation name's unused budget in l (zero when absent).
func unusedOf(l ledger.Ledger, name string) capacity.Resources {
	if r, ok := l.Reservations[name]; ok {
		return r.Remaining()
	}
	return capacity.Resources{}
}

// writeHold registers or resizes the hold job of spec, with check-and-set
// on the job, or removes it when its reservation no longer exists. It
// returns the evaluation to wait for ("" when nothing was written or the
// job was removed), whether another writer changed the job first, and
// whether the hold grew.
func (c *Client) writeHold(ctx context.Context, spec hold.Spec, exists bool) (string, bool, bool, error) {
	ns, id := spec.Namespace, hold.JobID(spec.NodeID, spec.Name)
	job, err := c.getJob(ctx, ns, id)
	if err != nil {
		return "", false, false, err
	}
	if job != nil && !hold.IsHoldJob(job) {
		return "", false, false, fmt.Errorf("job %q in namespace %q is not a berth hold (its meta %s is not %q), so berth will not "+
			"overwrite it; rename or remove that job, or choose another reservation name", id, ns, hold.MetaKind, hold.KindHold)
	}
	had, _, _ := hold.Of(job)
	grew := len(had.Shortfalls(spec.Held)) > 0
	switch {
	case !exists && job == nil:
		return "", false, false, nil
	case !exists:
		// Stop, wait until the client stopped it (only then is the room
		// free), then purge.
		tflog.Info(ctx, "Removing node reservation hold", map[string]any{"job": id, "namespace": ns})
		if err := c.RemoveJob(ctx, ns, id, Removal{Purge: true, UntilStopped: true}); err != nil {
			return "", false, false, fmt.Errorf("removing hold job %q: %w", id, err)
		}
		return "", false, false, nil
	case hold.Matches(job, spec):
		return "", false, false, nil
	}
	var index uint64
	if job != nil {
		index = deref(job.JobModifyIndex)
	}
	tflog.Info(ctx, "Sizing node reservation hold", map[string]any{
		"job": id, "namespace": ns, "cpu": spec.Held.CPU, "memory_mb": spec.Held.MemoryMB, "disk_mb": spec.Held.DiskMB, "driver": spec.Driver,
	})
	res, err := c.RegisterJob(ctx, hold.BuildJob(spec), index)
	if IsJobIndexConflict(err) {
		return "", true, false, nil
	}
	if err != nil {
		return "", false, false, fmt.Errorf("registering hold job %q: %w", id, err)
	}
	return res.EvalID, false, grew, nil
}

// readHold reports, without writing, what the hold job of reservation name
// holds and whether it is what ledger l asks for.
func (c *Client) readHold(ctx context.Context, ns, nodeID, name string, l ledger.Ledger) (HoldState, bool, error) {
	st := HoldState{JobID: hold.JobID(nodeID, name), Unheld: hold.Unheld(unusedOf(l, name))}
	spec, exists, err := c.holdSpec(ns, l, name)
	if err != nil {
		return st, false, err
	}
	job, err := c.getJob(ctx, ns, st.JobID)
	if err != nil {
		return st, false, err
	}
	st.Held, _, _ = hold.Of(job)
	if !exists {
		return st, job == nil, nil
	}
	return st, hold.Matches(job, spec), nil
}

// holdPlaceWait bounds how long WaitHoldPlaced waits for a hold that was
// waiting for its consumer's room.
const holdPlaceWait = time.Minute

// WaitHoldPlaced waits, after a consumer left, until the grown hold of
// reservation name is placed: an allocation of the hold job's current
// version that the scheduler wants running. It returns "" once placed or
// when there is no hold, and otherwise what it last saw when its bound
// ran out (someone else took the room first; Nomad keeps the hold's
// evaluation blocked until there is room again).
func (c *Client) WaitHoldPlaced(ctx context.Context, ns, nodeID, name string) (string, error) {
	id := hold.JobID(nodeID, name)
	job, err := c.getJob(ctx, ns, id)
	if held, _, _ := hold.Of(job); err != nil || held.IsZero() {
		return "", err // nothing to place
	}
	wctx, cancel := context.WithTimeout(ctx, holdPlaceWait)
	defer cancel()
	var index uint64
	last := "no allocation of the current version yet"
	err = poll(wctx, fmt.Sprintf("hold job %q to be placed", id), blockingPause, func() (bool, string, error) {
		allocs, next, err := c.jobAllocationsAfter(wctx, ns, id, index, min(blockingWait(wctx), maxBlockingWait))
		if err != nil {
			return false, last, err
		}
		index = next
		for _, a := range allocs {
			if a.JobVersion == deref(job.Version) && a.DesiredStatus == api.AllocDesiredStatusRun &&
				(a.ClientStatus == api.AllocClientStatusPending || a.ClientStatus == api.AllocClientStatusRunning) {
				return true, "", nil
			}
		}
		return false, last, nil
	})
	switch {
	case err == nil:
		return "", nil
	case wctx.Err() != nil && ctx.Err() == nil:
		return fmt.Sprintf("hold job %q was not placed within %s: %s", id, holdPlaceWait, last), nil
	}
	return "", err
}
