package devagent

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Starting one agent process: Start and StartCluster prepare the
// configuration, launch the process and wait until it is ready; Restart
// launches it again on the same configuration.

func startOnce(ctx context.Context, o Options, bin, dataDir string, owns bool) (*Agent, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	a, err := prepare(o, bin, dataDir, owns, baseConfig(o, dataDir, ports))
	if err != nil {
		return nil, err
	}
	if err := a.launch(false); err != nil {
		return nil, err
	}
	if err := a.waitReady(ctx); err != nil {
		return nil, a.startFailed(err)
	}
	return a, nil
}

// baseConfig is the agent configuration Options describe, on ports.
func baseConfig(o Options, dataDir string, ports []int) agentConfig {
	return agentConfig{
		Name: o.Name, Datacenter: o.Datacenter,
		DataDir:   filepath.Join(dataDir, nomadDataSubdir),
		MountsDir: filepath.Join(dataDir, mountsSubdir),
		NodeClass: o.NodeClass, NodePool: o.NodePool, Meta: o.Meta,
		Servers: o.Servers, ChrootEnv: o.ChrootEnv, TLS: o.TLS, ACL: o.ACL,
		CPUTotalMHz: o.CPUTotalMHz, MemoryTotalMB: o.MemoryTotalMB, DiskTotalMB: o.DiskTotalMB,
		HTTPPort: ports[0], RPCPort: ports[1], SerfPort: ports[2],
	}
}

// prepare writes the agent's configuration into dataDir and returns the
// Agent that launch starts.
func prepare(o Options, bin, dataDir string, owns bool, cfg agentConfig) (*Agent, error) {
	if o.NodeID != "" && !cfg.ServerOnly {
		// Nomad reads the node ID from <data_dir>/client/client-id.
		idDir := filepath.Join(cfg.DataDir, "client")
		if err := os.MkdirAll(idDir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(idDir, "client-id"), []byte(o.NodeID), 0o600); err != nil {
			return nil, err
		}
	}
	cfgPath := filepath.Join(dataDir, configFileName)
	if err := os.WriteFile(cfgPath, []byte(renderConfig(cfg)), 0o644); err != nil {
		return nil, err
	}
	scheme := "http"
	if o.TLS != nil {
		scheme = "https"
	}
	return &Agent{
		Addr:        fmt.Sprintf("%s://127.0.0.1:%d", scheme, cfg.HTTPPort),
		RPCAddr:     fmt.Sprintf("127.0.0.1:%d", cfg.RPCPort),
		SerfAddr:    fmt.Sprintf("127.0.0.1:%d", cfg.SerfPort),
		DataDir:     dataDir,
		Token:       o.Token,
		Name:        o.Name,
		Server:      cfg.server(),
		ServerOnly:  cfg.ServerOnly,
		OwnsDataDir: owns,
		TLS:         o.TLS,
		Bin:         bin,
		LogFile:     filepath.Join(dataDir, logFileName),
		opts:        o,
	}, nil
}

// launch starts the agent process on the configuration prepare wrote.
// again appends to the log of an earlier run instead of truncating it.
func (a *Agent) launch(again bool) error {
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if again {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	logf, err := os.OpenFile(a.LogFile, flags, 0o644)
	if err != nil {
		return err
	}
	if again {
		fmt.Fprintf(logf, "\n==> devagent: restarting the agent at %s\n", time.Now().UTC().Format(time.RFC3339))
	}
	cmd := exec.Command(a.Bin, "agent", "-config", filepath.Join(a.DataDir, configFileName))
	cmd.Dir = a.DataDir // executor/logmon children inherit it, which marks them as ours
	cmd.Env = agentEnv()
	var out io.Writer = logf
	if a.opts.Log != nil {
		out = io.MultiWriter(logf, a.opts.Log)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// A new session makes the agent its own process group leader (pgid ==
	// PID) and detaches it from the caller's terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if a.opts.DieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("devagent: start %s: %w", a.Bin, err)
	}
	done := make(chan struct{})
	a.PID = cmd.Process.Pid
	a.StartTime = 0
	if st, err := readProcStat(a.PID); err == nil {
		a.StartTime = st.StartTime
	}
	a.done, a.logf, a.paused = done, logf, false
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return nil
}

// startFailed kills an agent that did not become ready, cleans up after it
// (Start removes an owned data dir after the last attempt) and returns err
// with the tail of the agent log.
func (a *Agent) startFailed(err error) error {
	a.stopProcess(false)
	tail := logTail(a.LogFile, 40)
	_ = a.cleanup(false)
	err = fmt.Errorf("devagent: agent %s (pid %d) not ready: %w\n--- last lines of %s ---\n%s", a.Addr, a.PID, err, a.LogFile, tail)
	if strings.Contains(tail, "address already in use") {
		return &portInUseError{err}
	}
	return err
}

// agentEnv is the caller's environment minus the NOMAD_* client settings,
// which are meant for the CLI/API client and must not leak into the agent or
// its tasks.
func agentEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NOMAD_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
