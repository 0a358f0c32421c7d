// Package devagent starts and stops real, local Nomad agents for development
// (make up) and acceptance tests.
//
// An agent is either a single-node server+client (the default) or a
// client-only agent joining existing servers. Start waits until the agent is
// fully usable (leader elected, keyring ready, own node ready with the
// raw_exec and exec drivers healthy). Stop is idempotent and thorough: it
// purges jobs, stops the agent by PID / process group, kills orphaned task
// processes (found through /proc, never by name), unmounts whatever the
// client mounted under the data dir and removes the data dir if Start created
// it. Save and Load let a later process stop an agent started by an earlier
// one.
//
// For fault tests an agent can be frozen (Pause/Resume), crashed (Kill) and
// brought back on the same data dir and ports (Restart), and StartCluster
// runs several servers on loopback plus a client; Cluster.Leader finds the
// Raft leader.
package devagent

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Defaults used when the corresponding Options field is empty.
const (
	DefaultName         = "berth-dev"
	DefaultDatacenter   = "dc1"
	DefaultStartTimeout = 90 * time.Second
)

// DefaultDrivers are the task drivers that must be detected and healthy on
// the agent's node before Start returns.
func DefaultDrivers() []string { return []string{"raw_exec", "exec"} }

const (
	configFileName = "agent.hcl"
	logFileName    = "agent.log"
	markerFileName = ".berth-devagent"
	// nomadDataSubdir and mountsSubdir are Nomad's data_dir and the
	// client's alloc_mounts_dir inside Agent.DataDir. Nomad defaults
	// alloc_mounts_dir to a sibling of data_dir, which would put it outside
	// the directory Stop cleans up (e.g. a shared /tmp/alloc_mounts).
	nomadDataSubdir = "data"
	mountsSubdir    = "alloc_mounts"
)

// Options configures Start.
type Options struct {
	// Bin is the nomad binary. If empty: $NOMAD_BIN, then nomad on PATH, then
	// CachePath (see FindBinary).
	Bin string
	// DataDir is the directory holding everything of the agent: its
	// configuration (agent.hcl), log (agent.log), Nomad's data_dir (data/)
	// and the client's alloc_mounts_dir (alloc_mounts/). If empty a
	// temporary directory is created, and removed by Stop. A given
	// directory must be empty or have been used by devagent before.
	DataDir string
	// Name is the node name; default DefaultName.
	Name      string
	NodeClass string
	// NodePool is the client's node pool; empty means the "default" pool.
	NodePool string
	// Datacenter defaults to DefaultDatacenter.
	Datacenter string
	// Meta is client node metadata.
	Meta map[string]string
	// Servers, if non-empty, makes a client-only agent joining these server
	// RPC addresses (host:port, e.g. another Agent's RPCAddr). Otherwise the
	// agent is a single-node server+client (bootstrap_expect = 1).
	Servers []string
	// ChrootEnv overrides the client's chroot_env (what the exec driver
	// embeds in each task's chroot); nil keeps Nomad's default. See
	// MinimalChrootEnv for a much faster choice.
	ChrootEnv map[string]string
	// TLS enables TLS for HTTP and RPC with these files.
	TLS *TLSFiles
	// ACL enables ACLs. For a server Start bootstraps the ACL system and
	// returns the management token in Agent.Token.
	ACL bool
	// ACLSkipBootstrap, with ACL, leaves the ACL system not bootstrapped
	// (for tests of a bootstrap): Start waits for a leader only, since
	// every other readiness check needs a token, and Agent.Token stays
	// empty.
	ACLSkipBootstrap bool
	// Token is an ACL token Start uses for its API calls instead of
	// bootstrapping: needed for a client-only agent joining an ACL-enabled
	// cluster, or for a DataDir that was already bootstrapped. It is copied
	// to Agent.Token.
	Token string
	// Log receives the agent's stdout and stderr in addition to the
	// agent.log file in the data dir. It must stay writable for the life of
	// the agent; leave it nil for detached agents.
	Log io.Writer
	// NodeID, when set, is the client node ID the agent registers with
	// (Nomad keeps it in the data dir; tests use it to make IDs that share
	// a prefix). Only for a fresh data dir.
	NodeID string
	// DieWithParent sends the agent SIGTERM when the process that started it
	// dies (Linux Pdeathsig): use it in tests so a crashed test binary does
	// not leak agents. Leave it false for agents that must outlive their
	// starter (the CLI).
	DieWithParent bool
	// Timeout bounds how long Start waits for the agent to become ready;
	// default DefaultStartTimeout. The context deadline, if earlier, wins.
	Timeout time.Duration
	// Drivers must be detected and healthy before Start returns; default
	// DefaultDrivers.
	Drivers []string
	// CPUTotalMHz, MemoryTotalMB and DiskTotalMB give the client a fixed
	// size instead of the host's fingerprinted one (clients on one host all
	// see the same machine; tests that count capacity need exact numbers).
	// Zero keeps the fingerprinted value. CPUTotalMHz is the client's
	// cpu_total_compute, MemoryTotalMB its memory_total_mb; DiskTotalMB sets
	// both disk_total_mb and disk_free_mb, since Nomad schedules ephemeral
	// disk against the free space. They become the node's
	// NodeResources.Cpu.CpuShares, Memory.MemoryMB and Disk.DiskMB.
	CPUTotalMHz   int
	MemoryTotalMB int
	DiskTotalMB   int
}

// Agent is a running agent. Its exported fields are the JSON state written by
// Save.
type Agent struct {
	Addr     string `json:"addr"`      // http(s)://127.0.0.1:<http port>
	RPCAddr  string `json:"rpc_addr"`  // 127.0.0.1:<rpc port>, for Options.Servers of extra clients
	SerfAddr string `json:"serf_addr"` // 127.0.0.1:<serf port>, what servers join
	PID      int    `json:"pid"`
	DataDir  string `json:"data_dir"`
	NodeID   string `json:"node_id"` // the agent's own client node ID
	// Token is the ACL management token (secret: never log it).
	Token string `json:"token,omitempty"`

	Name        string    `json:"name"`
	Server      bool      `json:"server"`        // server+client rather than client-only
	ServerOnly  bool      `json:"server_only"`   // a cluster server without a client (NodeID empty)
	OwnsDataDir bool      `json:"owns_data_dir"` // Stop removes DataDir
	TLS         *TLSFiles `json:"tls,omitempty"`
	Bin         string    `json:"bin"`
	// StartTime is the process start time from /proc/<pid>/stat; it guards
	// against signaling a recycled PID.
	StartTime uint64 `json:"start_time"`
	LogFile   string `json:"log_file"`

	// Progress, if set, receives one line per Stop step with its duration.
	// It is not saved.
	Progress io.Writer `json:"-"`

	mu       sync.Mutex
	stopped  bool
	paused   bool          // SIGSTOPped by Pause
	opts     Options       // what Start was given, for Restart; zero after Load
	noPurge  bool          // Stop leaves purging to the cluster
	allocIDs []string      // allocations seen by Stop, for orphan detection
	done     chan struct{} // closed once an in-process child is reaped
	logf     *os.File
}

// Start launches an agent and waits until it is ready. On failure the process
// is killed, everything is cleaned up and the error includes the tail of the
// agent log.
func Start(ctx context.Context, o Options) (*Agent, error) {
	bin, err := FindBinary(o.Bin)
	if err != nil {
		return nil, err
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Datacenter == "" {
		o.Datacenter = DefaultDatacenter
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultStartTimeout
	}
	if o.Drivers == nil {
		o.Drivers = DefaultDrivers()
	}
	if o.CPUTotalMHz < 0 || o.MemoryTotalMB < 0 || o.DiskTotalMB < 0 {
		return nil, fmt.Errorf("devagent: a fixed client size cannot be negative (0 keeps the fingerprinted one): cpu %d MHz, memory %d MB, disk %d MB",
			o.CPUTotalMHz, o.MemoryTotalMB, o.DiskTotalMB)
	}
	if o.TLS != nil {
		tf := *o.TLS
		for _, p := range []*string{&tf.CAFile, &tf.CertFile, &tf.KeyFile} {
			if *p == "" {
				return nil, errors.New("devagent: TLS needs CAFile, CertFile and KeyFile")
			}
			if *p, err = filepath.Abs(*p); err != nil {
				return nil, err
			}
		}
		o.TLS = &tf
	}

	owns := false
	dataDir := o.DataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "berth-nomad-"); err != nil {
			return nil, err
		}
		owns = true
	} else if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	dataDir = canonicalDir(dataDir)
	if err := checkDataDir(dataDir); err != nil {
		if owns {
			os.RemoveAll(dataDir)
		}
		return nil, err
	}
	if !owns {
		// Stop kills every process whose cwd, args or environment mention
		// the data dir: only accept a dedicated directory.
		ents, err := os.ReadDir(dataDir)
		if err != nil {
			return nil, err
		}
		if _, merr := os.Stat(filepath.Join(dataDir, markerFileName)); len(ents) > 0 && merr != nil {
			return nil, fmt.Errorf("devagent: data dir %s is not empty and was not created by devagent; use a new or empty directory", dataDir)
		}
	}
	// Task directories must be traversable by the nobody user the exec
	// driver runs tasks as; MkdirTemp creates 0700.
	if err := os.Chmod(dataDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dataDir, markerFileName), []byte("data dir of a berth devagent Nomad agent\n"), 0o644); err != nil {
		return nil, err
	}

	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		a, err := startOnce(ctx, o, bin, dataDir, owns)
		if err == nil {
			return a, nil
		}
		lastErr = err
		var pe *portInUseError
		if !errors.As(err, &pe) || ctx.Err() != nil {
			break
		}
	}
	if owns && unmountUnder(dataDir) == nil {
		_ = os.RemoveAll(dataDir)
	}
	return nil, lastErr
}

// portInUseError marks a start failure caused by a port picked by freePorts
// being taken before the agent bound it; Start retries with new ports.
type portInUseError struct{ err error }

func (e *portInUseError) Error() string { return e.err.Error() }
func (e *portInUseError) Unwrap() error { return e.err }

// checkDataDir refuses data dirs for which Stop's cleanup (which kills every
// process referencing the directory) would be dangerous.
func checkDataDir(dir string) error {
	bad := map[string]bool{"/": true, canonicalDir(os.TempDir()): true}
	if home, err := os.UserHomeDir(); err == nil {
		bad[canonicalDir(home)] = true
	}
	if bad[dir] || strings.Count(dir, "/") < 2 {
		return fmt.Errorf("devagent: refusing to use %s as data dir: use a dedicated directory", dir)
	}
	return nil
}

// exited reports whether the agent process is gone.
func (a *Agent) exited() bool {
	if a.done != nil {
		select {
		case <-a.done:
			return true
		default:
		}
	}
	return !processAlive(a.PID, a.StartTime)
}

// waitReady polls until the agent is usable or the deadline passes.
func (a *Agent) waitReady(ctx context.Context) error {
	o := a.opts
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	status := "waiting for the HTTP API"
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if a.exited() {
			return fmt.Errorf("agent process exited (%s)", status)
		}
		done, st, err := a.readyStep(ctx, o)
		if err != nil {
			return err
		}
		status = st
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w after %s: %s", ctx.Err(), o.Timeout, status)
		case <-tick.C:
		}
	}
}

// readyStep performs one round of readiness checks. It returns done when the
// agent is ready, otherwise a description of what is still missing. A
// non-nil error is permanent.
func (a *Agent) readyStep(ctx context.Context, o Options) (bool, string, error) {
	c, err := a.apiClient(5 * time.Second)
	if err != nil {
		return false, "", err
	}
	defer c.Close()
	q := (&api.QueryOptions{}).WithContext(ctx)

	// The HTTP API answers. The status endpoints need no ACL token, so
	// this works before the ACL bootstrap too.
	if _, err := c.Status().Leader(); err != nil {
		return false, "waiting for the HTTP API: " + err.Error(), nil
	}
	if a.Server {
		leader, err := c.Status().Leader()
		if err != nil || leader == "" {
			return false, "waiting for a leader", nil
		}
		if o.ACL && o.ACLSkipBootstrap && a.Token == "" {
			return true, "ready (ACL not bootstrapped)", nil
		}
		if o.ACL && a.Token == "" {
			tok, _, err := c.ACLTokens().Bootstrap((&api.WriteOptions{}).WithContext(ctx))
			if err != nil {
				// Nomad answers 400 once the ACL system is bootstrapped.
				if isStatus(err, http.StatusBadRequest) {
					return false, "", errors.New("ACL system already bootstrapped in this data dir; set Options.Token")
				}
				return false, "waiting for ACL bootstrap: " + err.Error(), nil
			}
			a.Token = tok.SecretID
			c.SetSecretID(a.Token)
		}
		keys, _, err := c.Keyring().List(q)
		if err != nil {
			return false, "waiting for the keyring: " + err.Error(), nil
		}
		active := false
		for _, k := range keys {
			if k.State == api.RootKeyStateActive {
				active = true
			}
		}
		if !active {
			return false, "waiting for an active root key", nil
		}
		if a.ServerOnly {
			return true, "ready", nil
		}
	}

	if a.NodeID == "" {
		self, err := c.Agent().Self()
		if err != nil {
			return false, "waiting for agent self: " + err.Error(), nil
		}
		a.NodeID = self.Stats["client"]["node_id"]
		if a.NodeID == "" {
			return false, "waiting for the client node ID", nil
		}
	}
	node, _, err := c.Nodes().Info(a.NodeID, q)
	if err != nil {
		return false, "waiting for node " + a.NodeID + " to register: " + err.Error(), nil
	}
	if node.Name != o.Name {
		return false, "", fmt.Errorf("node %s is named %q, expected %q", a.NodeID, node.Name, o.Name)
	}
	if node.Status != api.NodeStatusReady {
		return false, fmt.Sprintf("waiting for node %s: status %q", a.NodeID, node.Status), nil
	}
	for _, d := range o.Drivers {
		info := node.Drivers[d]
		if info == nil || !info.Detected || !info.Healthy {
			desc := "not fingerprinted yet"
			if info != nil {
				desc = fmt.Sprintf("detected=%t healthy=%t %s", info.Detected, info.Healthy, info.HealthDescription)
			}
			return false, fmt.Sprintf("waiting for driver %s on node %s: %s", d, a.NodeID, desc), nil
		}
	}
	return true, "ready", nil
}

func isStatus(err error, code int) bool {
	var ue api.UnexpectedResponseError
	if errors.As(err, &ue) {
		return ue.StatusCode() == code
	}
	var pue *api.UnexpectedResponseError
	return errors.As(err, &pue) && pue != nil && pue.StatusCode() == code
}

// Client returns an API client for the agent, configured with its address,
// CA and ACL token.
func (a *Agent) Client() (*api.Client, error) {
	return a.apiClient(30 * time.Second)
}

func (a *Agent) apiClient(timeout time.Duration) (*api.Client, error) {
	cfg := &api.Config{Address: a.Addr, SecretID: a.Token}
	hc := &http.Client{Timeout: timeout, Transport: &http.Transport{
		Proxy:               nil, // loopback; never go through HTTP(S)_PROXY
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSHandshakeTimeout: 5 * time.Second,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}}
	if a.TLS != nil {
		cfg.TLSConfig = &api.TLSConfig{CACert: a.TLS.CAFile, ClientCert: a.TLS.CertFile, ClientKey: a.TLS.KeyFile}
		if err := api.ConfigureTLS(hc, cfg.TLSConfig); err != nil {
			return nil, err
		}
	}
	cfg.HttpClient = hc
	return api.NewClient(cfg)
}

// Env returns NOMAD_ADDR, and NOMAD_CACERT / NOMAD_TOKEN when set, as
// KEY=VALUE pairs for the nomad CLI or api.DefaultConfig.
func (a *Agent) Env() []string {
	env := []string{"NOMAD_ADDR=" + a.Addr}
	if a.TLS != nil {
		env = append(env, "NOMAD_CACERT="+a.TLS.CAFile)
	}
	if a.Token != "" {
		env = append(env, "NOMAD_TOKEN="+a.Token)
	}
	return env
}

// Alive reports whether the agent process is still running.
func (a *Agent) Alive() bool { return !a.exited() }

// Save writes the agent state as JSON (mode 0600: it holds the ACL token)
// so that another process can Load and Stop the agent.
func (a *Agent) Save(path string) error {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads state written by Save. A missing file yields an error matching
// fs.ErrNotExist.
func Load(path string) (*Agent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := &Agent{}
	if err := json.Unmarshal(data, a); err != nil {
		return nil, fmt.Errorf("devagent: parse state %s: %w", path, err)
	}
	if a.PID <= 0 || a.DataDir == "" || a.Addr == "" {
		return nil, fmt.Errorf("devagent: state %s is incomplete", path)
	}
	return a, nil
}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 64 * 1024
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
