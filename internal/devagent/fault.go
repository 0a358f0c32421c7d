package devagent

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Fault injection for tests: an agent can be frozen (Pause/Resume), killed
// as a crash would (Kill) and brought back on the same data dir and ports
// (Restart). Every signal goes to the agent's own PID, checked against its
// start time, never to processes found by name.

// ErrNotRunning is returned by Pause, Resume and Kill when the agent
// process is already gone.
var ErrNotRunning = errors.New("devagent: agent is not running")

// signal sends sig to the agent process if it is still the one started.
func (a *Agent) signal(sig syscall.Signal) error {
	if !processAlive(a.PID, a.StartTime) {
		return ErrNotRunning
	}
	if err := syscall.Kill(a.PID, sig); err != nil {
		return fmt.Errorf("devagent: signal %v to agent pid %d: %w", sig, a.PID, err)
	}
	return nil
}

// Pause freezes the agent with SIGSTOP: it keeps its connections and ports
// but answers nothing, like a hung machine. Its tasks keep running. Stop
// resumes a paused agent first.
func (a *Agent) Pause() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	a.paused = true
	// The signal is delivered asynchronously: return once it took effect.
	if !waitState(a.PID, 5*time.Second, func(s byte) bool { return s == 'T' || s == 't' }) {
		return fmt.Errorf("devagent: agent pid %d did not stop after SIGSTOP", a.PID)
	}
	return nil
}

// waitState polls the state letter of pid in /proc until ok accepts it.
func waitState(pid int, timeout time.Duration, ok func(byte) bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if st, err := readProcStat(pid); err == nil && ok(st.State) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Resume undoes Pause with SIGCONT.
func (a *Agent) Resume() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.resumeLocked()
}

func (a *Agent) resumeLocked() error {
	if !a.paused {
		return nil
	}
	if err := a.signal(syscall.SIGCONT); err != nil {
		return err
	}
	a.paused = false
	if !waitState(a.PID, 5*time.Second, func(s byte) bool { return s != 'T' && s != 't' }) {
		return fmt.Errorf("devagent: agent pid %d did not continue after SIGCONT", a.PID)
	}
	return nil
}

// Kill ends the agent process with SIGKILL, as a crash would: only the
// agent dies, its task processes (and their executors) keep running until
// Restart reattaches them or Stop cleans them up. It returns once the
// process is gone.
func (a *Agent) Kill() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.signal(syscall.SIGKILL); err != nil {
		return err
	}
	if !waitGone(a.PID, a.StartTime, 10*time.Second) {
		return fmt.Errorf("devagent: agent pid %d survived SIGKILL", a.PID)
	}
	if a.done != nil {
		<-a.done // reaped: the ports are free again
	}
	a.paused = false
	if a.logf != nil {
		a.logf.Close()
		a.logf = nil
	}
	return nil
}

// Restart starts the agent again after Kill (or after it died), on the
// same configuration, data dir and ports, and waits until it is ready as
// Start does. The log of the new run is appended to the agent log. Only an
// agent started by Start or StartCluster in this process can be restarted.
func (a *Agent) Restart(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.stopped:
		return errors.New("devagent: agent was stopped; start a new one")
	case a.opts.Timeout == 0:
		return errors.New("devagent: only an agent started in this process can be restarted")
	case !a.exited():
		return fmt.Errorf("devagent: agent pid %d is still running; Kill it first", a.PID)
	}
	if err := a.launch(true); err != nil {
		return err
	}
	if err := a.waitReady(ctx); err != nil {
		// Leave the data dir for Stop: it holds the state of the first run.
		a.stopProcess(false)
		return fmt.Errorf("devagent: restarted agent %s (pid %d) not ready: %w\n--- last lines of %s ---\n%s",
			a.Addr, a.PID, err, a.LogFile, logTail(a.LogFile, 40))
	}
	return nil
}
