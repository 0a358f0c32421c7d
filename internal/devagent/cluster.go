package devagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ClusterOptions configures StartCluster.
type ClusterOptions struct {
	// Servers is the number of servers; default 3.
	Servers int
	// Client configures the one client agent; its Servers, DataDir and
	// Token are set by StartCluster. Name defaults to "<Name>-client".
	Client Options
	// Name prefixes the servers' names (<Name>-s1, ...); default
	// DefaultName.
	Name string
	// Bin, Datacenter, DieWithParent, Log and Timeout apply to every agent
	// as in Options.
	Bin           string
	Datacenter    string
	DieWithParent bool
	Timeout       time.Duration
}

// Cluster is a Nomad cluster on loopback: Servers server-only agents that
// form one Raft group (bootstrap_expect = len(Servers), joined through
// retry_join on their serf ports) and one client agent that knows every
// server. ACLs and TLS are not supported.
type Cluster struct {
	Servers []*Agent
	Client  *Agent
}

// StartCluster starts the servers, each with its own temporary data dir and
// ports, waits until they have elected a leader, then starts the client and
// waits until its node is ready. On failure everything started is stopped.
func StartCluster(ctx context.Context, o ClusterOptions) (*Cluster, error) {
	if o.Servers <= 0 {
		o.Servers = 3
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
	bin, err := FindBinary(o.Bin)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		if c.Servers, lastErr = startServers(ctx, o, bin); lastErr == nil {
			break
		}
		var pe *portInUseError
		if !errors.As(lastErr, &pe) || ctx.Err() != nil {
			break
		}
	}
	if lastErr != nil {
		return nil, lastErr
	}
	co := o.Client
	if co.Name == "" {
		co.Name = o.Name + "-client"
	}
	co.Bin, co.Datacenter, co.DieWithParent = bin, o.Datacenter, o.DieWithParent
	if co.Timeout <= 0 {
		co.Timeout = o.Timeout
	}
	co.DataDir, co.Token = "", ""
	for _, s := range c.Servers {
		co.Servers = append(co.Servers, s.RPCAddr)
	}
	if c.Client, err = Start(ctx, co); err != nil {
		_ = c.Stop(context.Background())
		return nil, fmt.Errorf("devagent: cluster client: %w", err)
	}
	return c, nil
}

// startServers prepares every server on fresh ports, launches them all and
// waits until each is ready (which needs the whole group to elect a
// leader).
func startServers(ctx context.Context, o ClusterOptions, bin string) ([]*Agent, error) {
	ports, err := freePorts(3 * o.Servers)
	if err != nil {
		return nil, err
	}
	var joins []string
	for i := 0; i < o.Servers; i++ {
		joins = append(joins, fmt.Sprintf("127.0.0.1:%d", ports[3*i+2]))
	}
	servers := make([]*Agent, 0, o.Servers)
	fail := func(err error) ([]*Agent, error) {
		for _, s := range servers {
			s.stopProcess(false)
			_ = s.cleanup(true)
		}
		return nil, err
	}
	for i := 0; i < o.Servers; i++ {
		dir, err := os.MkdirTemp("", "berth-nomad-")
		if err != nil {
			return fail(err)
		}
		dir = canonicalDir(dir)
		// 0755 and the marker, as Start does for its data dirs.
		err = os.Chmod(dir, 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, markerFileName), []byte("data dir of a berth devagent Nomad agent\n"), 0o644)
		}
		if err != nil {
			os.RemoveAll(dir)
			return fail(err)
		}
		so := Options{Name: fmt.Sprintf("%s-s%d", o.Name, i+1), Datacenter: o.Datacenter,
			DieWithParent: o.DieWithParent, Timeout: o.Timeout, Drivers: []string{}}
		cfg := baseConfig(so, dir, ports[3*i:3*i+3])
		cfg.ServerOnly, cfg.BootstrapExpect = true, o.Servers
		for j, addr := range joins {
			if j != i {
				cfg.RetryJoin = append(cfg.RetryJoin, addr)
			}
		}
		a, err := prepare(so, bin, dir, true, cfg)
		if err != nil {
			os.RemoveAll(dir)
			return fail(err)
		}
		a.noPurge = true // Cluster.Stop purges once, while the client still runs
		if err := a.launch(false); err != nil {
			os.RemoveAll(dir)
			return fail(err)
		}
		servers = append(servers, a)
	}
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.waitReady(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			s := servers[i]
			err = fmt.Errorf("devagent: cluster server %s (pid %d) not ready: %w\n--- last lines of %s ---\n%s",
				s.Addr, s.PID, err, s.LogFile, logTail(s.LogFile, 40))
			for _, s := range servers {
				if containsAddrInUse(s.LogFile) {
					err = &portInUseError{err}
				}
			}
			return fail(err)
		}
	}
	return servers, nil
}

func containsAddrInUse(logFile string) bool {
	return strings.Contains(logTail(logFile, 40), "address already in use")
}

// Agents returns the servers and the client.
func (c *Cluster) Agents() []*Agent {
	out := append([]*Agent{}, c.Servers...)
	if c.Client != nil {
		out = append(out, c.Client)
	}
	return out
}

// Leader returns the server that the live servers agree is the Raft leader
// (GET /v1/status/leader), waiting up to timeout for one, and never one of
// excluded (e.g. a leader just killed, whose followers may still name it).
func (c *Cluster) Leader(ctx context.Context, timeout time.Duration, excluded ...*Agent) (*Agent, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := "no server answered"
	for {
		if l, why := c.agreedLeader(excluded); l != nil {
			return l, nil
		} else if why != "" {
			last = why
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("devagent: no cluster leader after %s: %s", timeout, last)
		case <-tick.C:
		}
	}
}

// agreedLeader asks every live server for the leader; it returns the
// leader only when all of them name the same live, not excluded server.
func (c *Cluster) agreedLeader(excluded []*Agent) (*Agent, string) {
	var leader string
	for _, s := range c.Servers {
		if !s.Alive() || isExcluded(s, excluded) {
			continue
		}
		cl, err := s.apiClient(2 * time.Second)
		if err != nil {
			return nil, err.Error()
		}
		addr, err := cl.Status().Leader()
		cl.Close()
		switch {
		case err != nil:
			return nil, fmt.Sprintf("%s: %v", s.Name, err)
		case addr == "":
			return nil, s.Name + " knows no leader"
		case leader != "" && addr != leader:
			return nil, fmt.Sprintf("servers disagree on the leader (%s, %s)", leader, addr)
		}
		leader = addr
	}
	for _, s := range c.Servers {
		if s.RPCAddr == leader && s.Alive() && !isExcluded(s, excluded) {
			return s, ""
		}
	}
	if leader == "" {
		return nil, ""
	}
	return nil, "leader " + leader + " is not a live candidate"
}

func isExcluded(a *Agent, excluded []*Agent) bool {
	for _, e := range excluded {
		if e == a {
			return true
		}
	}
	return false
}

// Stop purges the jobs through a live server while the client still runs,
// then stops the client and every server (see Agent.Stop).
func (c *Cluster) Stop(ctx context.Context) error {
	for _, s := range c.Servers {
		if s.Alive() {
			s.mu.Lock()
			if !s.stopped && !s.paused {
				s.purgeWorkloads(ctx)
			}
			s.mu.Unlock()
			break
		}
	}
	var errs []error
	if c.Client != nil {
		errs = append(errs, c.Client.Stop(ctx))
	}
	for _, s := range c.Servers {
		errs = append(errs, s.Stop(ctx))
	}
	return errors.Join(errs...)
}
