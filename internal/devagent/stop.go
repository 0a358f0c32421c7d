package devagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Stop stops the agent and cleans up after it:
//
//  1. for a server: purge all jobs in all namespaces and wait (≤30 s) until
//     no allocation is pending or running, then delete dynamic host volumes
//     (best effort);
//  2. SIGINT the agent, wait ≤20 s, then SIGKILL its process group;
//  3. SIGKILL, by PID, leftover processes referencing the data dir (orphaned
//     executors, logmon and task processes);
//  4. unmount everything under the data dir, deepest first, and remove the
//     data dir if Start created it.
//
// Stop is idempotent and safe on an agent loaded from a stale state file.
func (a *Agent) Stop(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return nil
	}
	step := a.stepTimer()
	if a.paused {
		_ = a.resumeLocked() // a frozen agent would ignore SIGINT and the API
	}
	if a.Server && !a.noPurge && !a.exited() {
		a.purgeWorkloads(ctx)
		step("stopped and purged jobs, deleted host volumes")
	}
	errs := a.stopProcess(true)
	step(fmt.Sprintf("stopped agent pid %d", a.PID))
	if err := a.cleanup(a.OwnsDataDir); err != nil {
		errs = append(errs, err)
	}
	step("killed leftover processes, unmounted and removed " + a.DataDir)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("devagent: stop: %w", err)
	}
	a.stopped = true
	return nil
}

// stepTimer returns a function reporting a finished step to a.Progress.
func (a *Agent) stepTimer() func(string) {
	last := time.Now()
	return func(what string) {
		if a.Progress != nil {
			fmt.Fprintf(a.Progress, "devagent: %s (%s)\n", what, time.Since(last).Round(10*time.Millisecond))
		}
		last = time.Now()
	}
}

// stopProcess is Stop step 2: it ends the agent process and its process
// group. graceful selects SIGINT with a grace period over an immediate
// SIGKILL.
func (a *Agent) stopProcess(graceful bool) []error {
	var errs []error
	if processAlive(a.PID, a.StartTime) {
		if graceful {
			_ = syscall.Kill(a.PID, syscall.SIGINT)
			waitGone(a.PID, a.StartTime, 20*time.Second)
		}
		if processAlive(a.PID, a.StartTime) {
			// Setsid made the agent its own process group leader.
			_ = syscall.Kill(-a.PID, syscall.SIGKILL)
			if !waitGone(a.PID, a.StartTime, 10*time.Second) {
				errs = append(errs, fmt.Errorf("agent pid %d survived SIGKILL", a.PID))
			}
		}
	}
	// Whatever is left in the agent's process group is ours too, but verify
	// through the data dir in case the PID was recycled.
	for _, pid := range groupMembers(a.PID) {
		if referencesDir(pid, a.DataDir, nil) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if a.done != nil {
		select {
		case <-a.done:
		case <-time.After(5 * time.Second):
		}
	}
	if a.logf != nil {
		a.logf.Close()
		a.logf = nil
	}
	return errs
}

// cleanup is Stop steps 3 and 4: kill leftover processes referencing the
// data dir, unmount everything below it and, if removeDir, remove it.
func (a *Agent) cleanup(removeDir bool) error {
	if a.DataDir == "" {
		return nil
	}
	if err := checkDataDir(a.DataDir); err != nil {
		return err
	}
	var errs []error
	allocs := allocIDsIn(a.DataDir)
	for _, id := range a.allocIDs {
		allocs[id] = true
	}
	if left := killReferencing(a.DataDir, 15*time.Second, a.allocIDs...); len(left) > 0 {
		errs = append(errs, fmt.Errorf("processes still referencing %s: %v", a.DataDir, left))
	} else {
		removeTaskCgroups(allocs)
	}
	if err := unmountUnder(a.DataDir); err != nil {
		// Never RemoveAll across a mount point: it would delete the
		// mounted files (host volumes, bind mounts).
		return errors.Join(append(errs, err)...)
	}
	if removeDir {
		if err := os.RemoveAll(a.DataDir); err != nil {
			errs = append(errs, fmt.Errorf("remove data dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

// purgeWorkloads is Stop step 1. It is best effort: failures only mean the
// later, blunter steps have more to clean up.
//
// Jobs are first stopped and only purged once their allocations are
// terminal: purging right away deletes the allocations from the state store
// at once, so there would be nothing left to wait on while the client is
// still killing the tasks.
func (a *Agent) purgeWorkloads(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 50*time.Second)
	defer cancel()
	c, err := a.apiClient(10 * time.Second)
	if err != nil {
		return
	}
	defer c.Close()
	all := func() *api.QueryOptions { return (&api.QueryOptions{Namespace: "*"}).WithContext(ctx) }
	inNS := func(ns string) *api.WriteOptions { return (&api.WriteOptions{Namespace: ns}).WithContext(ctx) }

	jobs, _, err := c.Jobs().List(all())
	if err == nil {
		for _, j := range jobs {
			_, _, _ = c.Jobs().Deregister(j.ID, false, inNS(j.Namespace))
		}
	}
	seen := map[string]bool{}
	pollUntil(ctx, 30*time.Second, func() bool {
		allocs, _, err := c.Allocations().List(all())
		if err != nil {
			return false
		}
		done := true
		for _, al := range allocs {
			if !seen[al.ID] {
				seen[al.ID] = true
				a.allocIDs = append(a.allocIDs, al.ID)
			}
			if al.ClientStatus == api.AllocClientStatusPending || al.ClientStatus == api.AllocClientStatusRunning {
				done = false
			}
		}
		return done
	})
	for _, j := range jobs {
		_, _, _ = c.Jobs().Deregister(j.ID, true, inNS(j.Namespace))
	}

	vols, _, err := c.HostVolumes().List(nil, all())
	if err != nil || len(vols) == 0 {
		return
	}
	for _, v := range vols {
		_, _, _ = c.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: v.ID}, inNS(v.Namespace))
	}
	pollUntil(ctx, 10*time.Second, func() bool {
		vols, _, err := c.HostVolumes().List(nil, all())
		return err == nil && len(vols) == 0
	})
}

// pollUntil calls cond every 250 ms until it returns true, ctx ends or
// timeout elapses.
func pollUntil(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
