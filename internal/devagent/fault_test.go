package devagent

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestRenderClusterServerConfig(t *testing.T) {
	c := agentConfig{
		Name: "berth-dev-s1", Datacenter: "dc1", DataDir: "/tmp/berth-nomad-1/data",
		HTTPPort: 1001, RPCPort: 1002, SerfPort: 1003,
		ServerOnly: true, BootstrapExpect: 3, RetryJoin: []string{"127.0.0.1:2003", "127.0.0.1:3003"},
	}
	got := renderConfig(c)
	for _, want := range []string{
		"bootstrap_expect = 3",
		"server_join {\n    retry_join     = [\"127.0.0.1:2003\", \"127.0.0.1:3003\"]\n    retry_interval = \"1s\"\n  }",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("config lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"client {", "plugin \"raw_exec\"", "bootstrap_expect = 1"} {
		if strings.Contains(got, bad) {
			t.Errorf("server-only config contains %q:\n%s", bad, got)
		}
	}
	c.ACL = true
	if !strings.Contains(renderConfig(c), "acl {\n  enabled = true\n}") {
		t.Errorf("server-only config lost the acl block")
	}
}

func TestFaultMethodsOnDeadAgent(t *testing.T) {
	// A PID that is certainly not ours: this process's start time differs.
	a := &Agent{PID: os.Getpid(), StartTime: 1}
	for name, f := range map[string]func() error{"Pause": a.Pause, "Kill": a.Kill} {
		if err := f(); !errors.Is(err, ErrNotRunning) {
			t.Errorf("%s on a recycled PID = %v, want ErrNotRunning", name, err)
		}
	}
	if err := a.Resume(); err != nil {
		t.Errorf("Resume of an agent never paused = %v", err)
	}
	if err := a.Restart(context.Background()); err == nil || !strings.Contains(err.Error(), "only an agent started in this process") {
		t.Errorf("Restart of a loaded agent = %v", err)
	}
}

// TestAgentPauseKillRestart freezes an agent, then crashes it and brings
// it back on the same data dir and ports: the task started before the crash
// is still the same running allocation afterwards.
func TestAgentPauseKillRestart(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	a := startAgent(t, Options{Name: "berth-restart", ChrootEnv: MinimalChrootEnv()})
	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().Register(sleepJob("survivor", "raw_exec"), nil); err != nil {
		t.Fatal(err)
	}
	alloc := waitRunning(t, c, "survivor")

	// Paused: the API accepts connections but never answers.
	if err := a.Pause(); err != nil {
		t.Fatal(err)
	}
	st, _ := readProcStat(a.PID)
	if st.State != 'T' {
		t.Errorf("paused agent state %q, want T (stopped)", st.State)
	}
	quick, err := a.apiClient(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := quick.Status().Leader(); err == nil {
		t.Error("a paused agent answered")
	}
	if err := a.Resume(); err != nil {
		t.Fatal(err)
	}
	// A resumed agent may need a moment on a busy machine.
	if !pollUntil(context.Background(), 30*time.Second, func() bool {
		_, err := quick.Status().Leader()
		return err == nil
	}) {
		t.Error("the resumed agent does not answer")
	}

	addr, rpc, node, pid := a.Addr, a.RPCAddr, a.NodeID, a.PID
	sleeps := sleepProcesses(t, a.DataDir)
	if err := a.Kill(); err != nil {
		t.Fatal(err)
	}
	if a.Alive() || processAlive(pid, 0) {
		t.Fatal("agent alive after Kill")
	}
	for _, p := range sleeps {
		if !processAlive(p, 0) {
			t.Errorf("task process %d died with the agent; Kill must only kill the agent", p)
		}
	}
	if err := a.Kill(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second Kill = %v, want ErrNotRunning", err)
	}

	begin := time.Now()
	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("Restart took %s", time.Since(begin).Round(time.Millisecond))
	if a.PID == pid || a.Addr != addr || a.RPCAddr != rpc || a.NodeID != node {
		t.Errorf("restarted agent pid %d addr %s rpc %s node %s; want a new pid and %s %s %s", a.PID, a.Addr, a.RPCAddr, a.NodeID, addr, rpc, node)
	}
	if err := a.Restart(context.Background()); err == nil {
		t.Error("Restart of a running agent succeeded")
	}
	c, err = a.Client()
	if err != nil {
		t.Fatal(err)
	}
	if again := waitRunning(t, c, "survivor"); again.ID != alloc.ID {
		t.Errorf("allocation after restart %s, want the reattached %s", again.ID, alloc.ID)
	}
	log, _ := os.ReadFile(a.LogFile)
	if !strings.Contains(string(log), "devagent: restarting the agent") {
		t.Error("the log of the first run was not kept")
	}
	dataDir := a.DataDir
	stopAgent(t, a)
	assertGone(t, a.PID, a.StartTime, dataDir)
	for _, p := range sleeps {
		if processAlive(p, 0) {
			t.Errorf("task process %d survived Stop", p)
		}
	}
}

// TestAgentStopPaused stops a frozen agent.
func TestAgentStopPaused(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	a := startAgent(t, Options{Name: "berth-paused"})
	if err := a.Pause(); err != nil {
		t.Fatal(err)
	}
	pid, start, dir := a.PID, a.StartTime, a.DataDir
	stopAgent(t, a)
	assertGone(t, pid, start, dir)
}

// TestCluster starts three servers and a client, runs a job through the
// client, kills the leader and waits for the survivors to elect another.
func TestCluster(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	begin := time.Now()
	cl, err := StartCluster(ctx, ClusterOptions{Name: "berth-cl", DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("StartCluster took %s", time.Since(begin).Round(time.Millisecond))
	var dirs []string
	for _, a := range cl.Agents() {
		dirs = append(dirs, a.DataDir)
	}
	t.Cleanup(func() { _ = cl.Stop(context.Background()) })

	if len(cl.Servers) != 3 || cl.Client == nil || cl.Client.NodeID == "" {
		t.Fatalf("cluster %d servers, client %+v", len(cl.Servers), cl.Client)
	}
	for _, s := range cl.Servers {
		if !s.Server || !s.ServerOnly || s.NodeID != "" {
			t.Errorf("server %s: Server %t ServerOnly %t node %q", s.Name, s.Server, s.ServerOnly, s.NodeID)
		}
	}
	c, err := cl.Client.Client()
	if err != nil {
		t.Fatal(err)
	}
	members, err := cl.Servers[0].Client()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := members.Agent().Members(); err != nil || len(m.Members) != 3 {
		t.Fatalf("serf members %v (err %v), want 3", m, err)
	}
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 || nodes[0].ID != cl.Client.NodeID {
		t.Fatalf("nodes %v (err %v), want only the client", nodes, err)
	}
	if _, _, err := c.Jobs().Register(sleepJob("clustered", "raw_exec"), nil); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "clustered")

	leader, err := cl.Leader(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	begin = time.Now()
	next, err := cl.Leader(ctx, time.Minute, leader)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s took over from %s after %s", next.Name, leader.Name, time.Since(begin).Round(time.Millisecond))
	if next == leader || !next.Alive() {
		t.Fatalf("new leader %s", next.Name)
	}
	// The cluster still takes writes through the client.
	job, _, err := c.Jobs().Info("clustered", nil)
	if err != nil {
		t.Fatal(err)
	}
	job.Meta = map[string]string{"after": "election"}
	var werr error
	if !pollUntil(ctx, 30*time.Second, func() bool {
		_, _, werr = c.Jobs().Register(job, &api.WriteOptions{})
		return werr == nil
	}) {
		t.Fatalf("write after the election: %v", werr)
	}

	if err := cl.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("data dir %s left behind", d)
		}
		if left := processesReferencing(d); len(left) > 0 {
			t.Errorf("processes still reference %s: %v", d, left)
		}
	}
	if err := syscall.Kill(leader.PID, 0); err == nil && processAlive(leader.PID, leader.StartTime) {
		t.Errorf("killed leader pid %d alive", leader.PID)
	}
}
