package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// RevertResult is what a revert did: the job went from version From to a
// copy of version To, registered as a new version, whose evaluation is
// EvalID.
type RevertResult struct {
	From, To uint64
	EvalID   string
}

// RevertConflictError says the job changed between berth reading its
// current version and the revert: Nomad refused the revert (check-and-set)
// rather than overwrite that change. RevertJob returns it inside a
// *WriteNotAppliedError: nothing was written.
type RevertConflictError struct {
	JobID    string
	Expected uint64 // the version berth read and reverted from
	Nomad    string // Nomad's answer
}

func (e *RevertConflictError) Error() string {
	return fmt.Sprintf("job %q changed while berth reverted it: berth read version %d as the current one, and Nomad said: %s",
		e.JobID, e.Expected, e.Nomad)
}

// RevertJob returns a job to an earlier version with Nomad's revert API,
// which registers a copy of that version as a new one. requested is the
// version; nil means the newest stable version older than the current one
// (instance.RevertTarget, whose *instance.RevertRefusal says why none
// fits). The revert is check-and-set against the current version read
// just before, so a change made meanwhile fails with a
// *RevertConflictError instead of being overwritten.
//
// A revert whose answer was lost is settled like a registration: if the
// job is still at the version read, it is tried again; if it moved to a
// job identical to the version asked for, that was this revert; otherwise
// it is a conflict, and an *UncertainWriteError when Nomad cannot be asked.
func (c *Client) RevertJob(ctx context.Context, namespace, jobID string, requested *uint64) (*RevertResult, error) {
	versions, err := c.jobVersions(ctx, namespace, jobID)
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("job %q in namespace %q has no versions: it is gone", jobID, namespace)
	}
	cur := versions[0]
	kept := make([]instance.JobVersion, 0, len(versions))
	for _, v := range versions {
		kept = append(kept, instance.JobVersion{Number: deref(v.Version), Stable: deref(v.Stable)})
	}
	from := deref(cur.Version)
	to, err := instance.RevertTarget(from, kept, requested)
	if err != nil {
		return nil, err
	}
	var target *api.Job
	for _, v := range versions {
		if deref(v.Version) == to {
			target = v
		}
	}
	tflog.Info(ctx, "Reverting job", map[string]any{"job": jobID, "namespace": namespace, "from": from, "to": to})
	ambiguous := false
	res, err := retry(ctx, c.retry, "revert job", func(ctx context.Context, attempt int) (*RevertResult, bool, error) {
		resp, _, err := c.api.Jobs().Revert(jobID, to, &from, c.write(ctx, namespace), "", "")
		switch {
		case err == nil:
			return &RevertResult{From: from, To: to, EvalID: resp.EvalID}, false, nil
		case isRevertRefused(err) && !isRevertConflict(err):
			return nil, false, &WriteNotAppliedError{Err: fmt.Errorf("reverting job %q to version %d: Nomad refused: %s",
				jobID, to, NomadMessage(err))}
		case isRevertConflict(err) && !ambiguous:
			return nil, false, &WriteNotAppliedError{Err: &RevertConflictError{JobID: jobID, Expected: from, Nomad: NomadMessage(err)}}
		case isRevertConflict(err) || isTimeout(err) || isRetryable(err):
			ambiguous = true
			// Only an attempt known not to have landed may be sent again.
			// Ask with a fresh deadline: the action's own may be what ended.
			settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
			defer cancel()
			own, settleErr := c.settleRevert(settle, namespace, target, cur)
			switch {
			case settleErr != nil:
				return nil, false, &UncertainWriteError{Op: "revert", Err: fmt.Errorf("%w (and checking whether it was applied "+
					"failed: %v)", c.classify(err, "revert job"), settleErr)}
			case own != nil:
				own.From, own.To = from, to
				return own, false, nil
			case isRevertConflict(err):
				return nil, false, &WriteNotAppliedError{Err: &RevertConflictError{JobID: jobID, Expected: from, Nomad: NomadMessage(err)}}
			}
			return nil, isRetryable(err), &WriteNotAppliedError{Err: c.classify(err, "revert job")}
		}
		return nil, false, &WriteNotAppliedError{Err: c.classify(err, "revert job")}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// settleRevert finds out whether a revert whose answer was lost was
// applied: nil, nil when the job is still at cur (nothing happened); the
// registration when the live job is target's spec at a later index (the
// revert landed); a *RevertConflictError when it is something else.
func (c *Client) settleRevert(ctx context.Context, namespace string, target, cur *api.Job) (*RevertResult, error) {
	live, err := c.getJob(ctx, namespace, deref(cur.ID))
	if err != nil {
		return nil, err
	}
	if live == nil {
		return nil, fmt.Errorf("job %q is gone", deref(cur.ID))
	}
	if deref(live.JobModifyIndex) == deref(cur.JobModifyIndex) {
		return nil, nil
	}
	want := *target
	want.VersionTag = nil // the revert drops the tag; it is no part of the spec
	own, err := c.ownRegistration(ctx, &want, nil, deref(cur.JobModifyIndex))
	if err != nil || own == nil {
		return nil, err
	}
	return &RevertResult{EvalID: own.EvalID}, nil
}

// jobVersions lists the versions Nomad keeps of a job, newest first. A job
// Nomad does not know has none.
func (c *Client) jobVersions(ctx context.Context, namespace, jobID string) ([]*api.Job, error) {
	versions, err := getOrNil(ctx, c, "list job versions", func(ctx context.Context) ([]*api.Job, error) {
		out, _, _, err := c.api.Jobs().Versions(jobID, false, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	}, "listing the versions of job %q in namespace %q", jobID, namespace)
	if err != nil {
		return nil, err
	}
	sort.Slice(versions, func(i, j int) bool { return deref(versions[i].Version) > deref(versions[j].Version) })
	return versions, nil
}

// settleTimeout bounds finding out whether a write whose answer was lost
// was applied.
const settleTimeout = 30 * time.Second

// Nomad answers a revert it refuses with a 500 and one of these messages
// (nomad/job_endpoint.go, Job.Revert), which no retry changes.
var revertRefusals = []string{"can't revert to current version", "not found", "Current job has version",
	"Enforcing job modify index"}

func isRevertRefused(err error) bool {
	if statusCode(err) == 0 {
		return false
	}
	if code := statusCode(err); code >= 400 && code < 500 && code != 429 {
		return true
	}
	msg := NomadMessage(err)
	for _, r := range revertRefusals {
		if strings.Contains(msg, r) {
			return true
		}
	}
	return false
}

// isRevertConflict reports whether Nomad refused a revert because the job
// is no longer at the version (or modify index) it was checked against.
func isRevertConflict(err error) bool {
	if statusCode(err) == 0 {
		return false
	}
	msg := NomadMessage(err)
	return strings.Contains(msg, "Current job has version") || strings.Contains(msg, "Enforcing job modify index")
}

// IsRevertConflict reports whether err is a revert refused because the
// job changed meanwhile.
func IsRevertConflict(err error) bool {
	var rc *RevertConflictError
	return errors.As(err, &rc)
}
