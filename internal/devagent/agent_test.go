package devagent

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// ---------------------------------------------------------------------------
// Unit tests (no Nomad needed)

func TestRenderConfig(t *testing.T) {
	base := agentConfig{
		Name: "berth-dev", Datacenter: "dc1", DataDir: "/tmp/berth-nomad-1",
		HTTPPort: 1001, RPCPort: 1002, SerfPort: 1003,
	}
	tests := []struct {
		name    string
		mutate  func(*agentConfig)
		want    []string
		notWant []string
	}{
		{
			name: "server and client",
			want: []string{
				`name                 = "berth-dev"`,
				`datacenter           = "dc1"`,
				`data_dir             = "/tmp/berth-nomad-1"`,
				`bind_addr            = "127.0.0.1"`,
				`log_level            = "INFO"`,
				"disable_update_check = true",
				"http = 1001", "rpc  = 1002", "serf = 1003",
				`http = "127.0.0.1"`, `rpc  = "127.0.0.1"`, `serf = "127.0.0.1"`,
				"server {\n  enabled          = true\n  bootstrap_expect = 1\n}",
				"client {\n  enabled = true\n",
				`"fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean,vault"`,
				"plugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}",
			},
			notWant: []string{"servers =", "acl {", "tls {", "node_class", "node_pool", "meta {", "alloc_mounts_dir", "chroot_env",
				"cpu_total_compute", "memory_total_mb", "disk_total_mb", "disk_free_mb"},
		},
		{
			name: "fixed client size",
			mutate: func(c *agentConfig) {
				c.CPUTotalMHz, c.MemoryTotalMB, c.DiskTotalMB = 1000, 1024, 2048
			},
			want: []string{
				"client {\n  enabled = true\n  cpu_total_compute = 1000\n  memory_total_mb = 1024\n  disk_total_mb = 2048\n  disk_free_mb = 2048\n",
			},
		},
		{
			name:    "fixed cpu only",
			mutate:  func(c *agentConfig) { c.CPUTotalMHz = 500 },
			want:    []string{"  cpu_total_compute = 500\n"},
			notWant: []string{"memory_total_mb", "disk_total_mb", "disk_free_mb"},
		},
		{
			name: "server only ignores the client size",
			mutate: func(c *agentConfig) {
				c.ServerOnly = true
				c.CPUTotalMHz, c.MemoryTotalMB, c.DiskTotalMB = 1000, 1024, 2048
			},
			notWant: []string{"client {", "cpu_total_compute", "memory_total_mb", "disk_total_mb"},
		},
		{
			name: "client only joining servers",
			mutate: func(c *agentConfig) {
				c.Servers = []string{"127.0.0.1:4647", "127.0.0.1:5647"}
				c.NodeClass = "gpu"
				c.NodePool = "batch"
			},
			want: []string{
				`servers = ["127.0.0.1:4647", "127.0.0.1:5647"]`,
				`node_class = "gpu"`,
				`node_pool = "batch"`,
				"client {\n  enabled = true\n",
			},
			notWant: []string{"server {", "bootstrap_expect"},
		},
		{
			name: "meta is sorted and quoted",
			mutate: func(c *agentConfig) {
				c.Meta = map[string]string{"zone": "a", "rack": `r"1\`, "tmpl": "${node.unique.id}", "multi": "a\nb"}
			},
			want: []string{
				"  meta {\n    \"multi\" = \"a\\nb\"\n    \"rack\" = \"r\\\"1\\\\\"\n    \"tmpl\" = \"\\u0024{node.unique.id}\"\n    \"zone\" = \"a\"\n  }",
			},
		},
		{
			name:   "alloc mounts dir",
			mutate: func(c *agentConfig) { c.MountsDir = "/tmp/berth-nomad-1/alloc_mounts" },
			want:   []string{`alloc_mounts_dir = "/tmp/berth-nomad-1/alloc_mounts"`},
		},
		{
			name: "chroot env",
			mutate: func(c *agentConfig) {
				c.ChrootEnv = map[string]string{"/usr/bin": "/usr/bin", "/bin": "/bin"}
			},
			want: []string{"  chroot_env {\n    \"/bin\" = \"/bin\"\n    \"/usr/bin\" = \"/usr/bin\"\n  }"},
		},
		{
			name: "acl and tls",
			mutate: func(c *agentConfig) {
				c.ACL = true
				c.TLS = &TLSFiles{CAFile: "/t/ca.pem", CertFile: "/t/agent.pem", KeyFile: "/t/agent-key.pem"}
			},
			want: []string{
				"acl {\n  enabled = true\n}",
				"http                   = true", "rpc                    = true",
				`ca_file                = "/t/ca.pem"`,
				`cert_file              = "/t/agent.pem"`,
				`key_file               = "/t/agent-key.pem"`,
				"verify_server_hostname = true",
				"verify_https_client    = false",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			if tt.mutate != nil {
				tt.mutate(&c)
			}
			got := renderConfig(c)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("config lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("config unexpectedly contains %q:\n%s", w, got)
				}
			}
			if strings.Count(got, "{") != strings.Count(got, "}") {
				t.Errorf("unbalanced braces:\n%s", got)
			}
		})
	}
}

func TestMinimalChrootEnv(t *testing.T) {
	env := MinimalChrootEnv()
	for _, p := range []string{"/bin", "/etc"} {
		if env[p] != p {
			t.Errorf("MinimalChrootEnv lacks %s: %v", p, env)
		}
	}
	for src, dst := range env {
		if src != dst {
			t.Errorf("%s maps to %s", src, dst)
		}
		if src == "/usr" || src == "/lib" || src == "/usr/lib" {
			t.Errorf("MinimalChrootEnv embeds all of %s", src)
		}
	}
}

func TestHCLQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a"b`, `"a\"b"`},
		{`C:\x`, `"C:\\x"`},
		{"l1\nl2\tx\r", `"l1\nl2\tx\r"`},
		{"${x}", `"\u0024{x}"`},
		{"$x $ {", `"$x $ {"`},
		{"%{x}", `"%{x}"`},
		{"\x01", `"\u0001"`},
		{"ünï", `"ünï"`},
	}
	for _, tt := range tests {
		if got := hclQuote(tt.in); got != tt.want {
			t.Errorf("hclQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseMountInfo(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []mountInfo
		wantErr bool
	}{
		{
			name: "optional fields and escapes",
			in: "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n" +
				"90 22 0:50 / /tmp/berth\\040dir/alloc/a1/t/secrets rw,noexec shared:40 master:2 - tmpfs tmpfs rw,size=1024k\n" +
				"91 22 8:1 /srv /tmp/x\\011y rw - ext4 /dev/sda1 rw\n",
			want: []mountInfo{
				{ID: 22, ParentID: 1, MountPoint: "/", FSType: "ext4", Source: "/dev/sda1"},
				{ID: 90, ParentID: 22, MountPoint: "/tmp/berth dir/alloc/a1/t/secrets", FSType: "tmpfs", Source: "tmpfs"},
				{ID: 91, ParentID: 22, MountPoint: "/tmp/x\ty", FSType: "ext4", Source: "/dev/sda1"},
			},
		},
		{
			name: "blank lines ignored",
			in:   "\n30 22 0:5 / /proc rw - proc proc rw\n\n",
			want: []mountInfo{{ID: 30, ParentID: 22, MountPoint: "/proc", FSType: "proc", Source: "proc"}},
		},
		{name: "too few fields", in: "1 2 3\n", wantErr: true},
		{name: "no separator", in: "1 0 8:1 / / rw shared:1 ext4 /dev/sda1 rw\n", wantErr: true},
		{name: "bad id", in: "x 0 8:1 / / rw - ext4 /dev/sda1 rw\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMountInfo(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseRealMountInfo(t *testing.T) {
	mounts, err := readMounts()
	if err != nil {
		t.Skipf("no /proc/self/mountinfo: %v", err)
	}
	if len(mounts) == 0 {
		t.Fatal("no mounts parsed")
	}
}

func TestMountsUnder(t *testing.T) {
	mounts := []mountInfo{
		{MountPoint: "/"},
		{MountPoint: "/d/alloc/a/t/secrets"},
		{MountPoint: "/d"},
		{MountPoint: "/d/alloc/a/t/secrets"}, // stacked
		{MountPoint: "/dx/alloc"},
		{MountPoint: "/d/alloc/a/t/private"},
		{MountPoint: "/d/host_volumes/v"},
	}
	got := mountsUnder(mounts, "/d/")
	want := []string{"/d/alloc/a/t/secrets", "/d/alloc/a/t/private", "/d/host_volumes/v", "/d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mountsUnder = %q, want %q", got, want)
	}
}

func TestUnescapeMountPath(t *testing.T) {
	tests := map[string]string{
		`/a\040b`:      "/a b",
		`/a\134b`:      `/a\b`,
		`/a\012`:       "/a\n",
		`/trailing\04`: `/trailing\04`,
		`/bad\999`:     `/bad\999`,
		`/plain`:       "/plain",
	}
	for in, want := range tests {
		if got := unescapeMountPath(in); got != want {
			t.Errorf("unescapeMountPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContainsPath(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"/tmp/d", true},
		{"nomad\x00executor\x00{\"LogFile\":\"/tmp/d/alloc/x/stdout\"}", true},
		{"NOMAD_ALLOC_DIR=/tmp/d/alloc/1/alloc\x00", true},
		{"--data-dir=/tmp/d\x00", true},
		{"/tmp/dx/alloc", false},
		{"/tmp/d.old", false},
		{"/tmp/d-2", false},
		{"/tmp/e", false},
		{"/tmp/dx /tmp/d", true},
	}
	for _, tt := range tests {
		if got := containsPath([]byte(tt.data), "/tmp/d"); got != tt.want {
			t.Errorf("containsPath(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
	if containsPath([]byte("/anything"), "/") {
		t.Error("root dir must never match")
	}
}

func TestCgroupHasAlloc(t *testing.T) {
	id := "b0b5504f-fc46-2ea3-ba7e-3125a1b4c149"
	ids := map[string]bool{id: true}
	tests := []struct {
		name, cgroup string
		want         bool
	}{
		{"v1", "4:memory:/nomad/" + id + ".t\n3:cpuset:/nomad/share\n0::/nomad/" + id + ".t\n", true},
		{"v2", "0::/nomad.slice/share.slice/" + id + ".web.scope\n", true},
		{"bare id", "0::/nomad/" + id + "\n", true},
		{"other alloc", "0::/nomad.slice/share.slice/c0b5504f-fc46-2ea3-ba7e-3125a1b4c149.web.scope\n", false},
		{"id prefix only", "0::/x/" + id + "extra\n", false},
		{"root", "0::/\n", false},
		{"garbage", "nonsense", false},
	}
	for _, tt := range tests {
		if got := cgroupHasAlloc(tt.cgroup, ids); got != tt.want {
			t.Errorf("%s: cgroupHasAlloc = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPathWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{"/d", "/d", true},
		{"/d/x", "/d", true},
		{"/d/x", "/d/", true},
		{"/dx", "/d", false},
		{"/", "/d", false},
		{"/x", "/", false},
	}
	for _, tt := range tests {
		if got := pathWithin(tt.p, tt.dir); got != tt.want {
			t.Errorf("pathWithin(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	line := "4242 (my (weird) prog) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 987654 1000 100 18446744073709551615"
	st, err := parseProcStat(line)
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{State: 'S', PPID: 1, PGRP: 4242, StartTime: 987654}
	if st != want {
		t.Errorf("got %+v, want %+v", st, want)
	}
	if _, err := parseProcStat("12 (x) S 1"); err == nil {
		t.Error("short stat accepted")
	}
	self, err := readProcStat(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if !processAlive(os.Getpid(), self.StartTime) || processAlive(os.Getpid(), self.StartTime+1) {
		t.Error("processAlive does not honor the start time")
	}
}

func TestCheckDataDir(t *testing.T) {
	for _, d := range []string{"/", "/tmp", canonicalDir(os.TempDir()), "/srv"} {
		if err := checkDataDir(d); err == nil {
			t.Errorf("checkDataDir(%q) accepted", d)
		}
	}
	if err := checkDataDir(canonicalDir(t.TempDir())); err != nil {
		t.Errorf("temp dir rejected: %v", err)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "agent.json")
	a := &Agent{
		Addr: "https://127.0.0.1:4646", RPCAddr: "127.0.0.1:4647", PID: 1234,
		DataDir: "/tmp/berth-nomad-1", NodeID: "node-1", Token: "secret",
		Name: "berth-dev", Server: true, OwnsDataDir: true, Bin: "/bin/nomad",
		StartTime: 42, LogFile: "/tmp/berth-nomad-1/agent.log",
		TLS: &TLSFiles{CAFile: "/c", CertFile: "/e", KeyFile: "/k"},
	}
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b.done, a.done = nil, nil
	if !reflect.DeepEqual(exported(a), exported(b)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", exported(b), exported(a))
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing state: err = %v, want fs.ErrNotExist", err)
	}
	if err := os.WriteFile(path, []byte(`{"pid": 0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("incomplete state accepted")
	}
}

// exported copies the JSON-visible fields of an Agent.
func exported(a *Agent) Agent {
	return Agent{
		Addr: a.Addr, RPCAddr: a.RPCAddr, PID: a.PID, DataDir: a.DataDir, NodeID: a.NodeID,
		Token: a.Token, Name: a.Name, Server: a.Server, OwnsDataDir: a.OwnsDataDir, TLS: a.TLS,
		Bin: a.Bin, StartTime: a.StartTime, LogFile: a.LogFile,
	}
}

func TestStopStaleStateIsNoop(t *testing.T) {
	// A state file whose process and data dir are long gone: Stop must
	// succeed without touching anything.
	dir := filepath.Join(t.TempDir(), "gone")
	a := &Agent{Addr: "http://127.0.0.1:1", PID: 1 << 30, DataDir: dir, OwnsDataDir: true, Server: true}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestGenerateTLS(t *testing.T) {
	dir := t.TempDir()
	files, caPEM, err := GenerateTLS(dir, []string{"10.1.2.3", "nomad.example"})
	if err != nil {
		t.Fatal(err)
	}
	caData, err := os.ReadFile(files.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(caData) != caPEM {
		t.Error("CA file differs from returned PEM")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(caPEM)) {
		t.Fatal("CA PEM does not parse")
	}
	certPEM, err := os.ReadFile(files.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "localhost", "server.global.nomad", "client.global.nomad", "10.1.2.3", "nomad.example"} {
		for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
			if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
				t.Errorf("verify %s usage %v: %v", name, usage, err)
			}
		}
	}
	if err := cert.VerifyHostname("server.dc2.nomad"); err == nil {
		t.Error("certificate unexpectedly valid for server.dc2.nomad")
	}
	if fi, err := os.Stat(files.KeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v", err, fi.Mode().Perm())
	}
	keyPEM, _ := os.ReadFile(files.KeyFile)
	kb, _ := pem.Decode(keyPEM)
	if _, err := x509.ParsePKCS8PrivateKey(kb.Bytes); err != nil {
		t.Errorf("key: %v", err)
	}
}

func TestFindBinaryErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "nomad")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindBinary(notExec); err == nil {
		t.Error("non-executable accepted")
	}
	t.Setenv("NOMAD_BIN", filepath.Join(dir, "missing"))
	if _, err := FindBinary(""); err == nil {
		t.Error("missing NOMAD_BIN accepted")
	}
	t.Setenv("NOMAD_BIN", "")
	t.Setenv("PATH", dir+"/empty")
	t.Setenv("XDG_CACHE_HOME", dir)
	_, err := FindBinary("")
	if err == nil || !strings.Contains(err.Error(), "run scripts/nomad-bin.sh or make nomad") {
		t.Errorf("err = %v, want a hint to build nomad", err)
	}
	if got, want := CachePath(), filepath.Join(dir, "berth", "nomad-"+NomadVersion, "nomad"); got != want {
		t.Errorf("CachePath = %s, want %s", got, want)
	}
}

// ---------------------------------------------------------------------------
// Integration tests (need a nomad binary; one agent at a time)

func requireNomad(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test skipped in -short mode")
	}
	if os.Getenv("NOMAD_BIN") == "" {
		if _, err := os.Stat(CachePath()); err != nil {
			t.Skipf("no nomad: set NOMAD_BIN or run scripts/nomad-bin.sh to build %s", CachePath())
		}
	}
	bin, err := FindBinary("")
	if err != nil {
		t.Skip(err.Error())
	}
	if os.Geteuid() != 0 {
		t.Skip("the exec driver needs root")
	}
	return bin
}

func startAgent(t *testing.T, o Options) *Agent {
	t.Helper()
	o.DieWithParent = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	begin := time.Now()
	a, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start took %s (pid %d, %s, node %s)", time.Since(begin).Round(time.Millisecond), a.PID, a.Addr, a.NodeID)
	t.Cleanup(func() {
		if err := a.Stop(context.Background()); err != nil {
			t.Errorf("cleanup Stop: %v", err)
		}
	})
	return a
}

func stopAgent(t *testing.T, a *Agent) {
	t.Helper()
	begin := time.Now()
	a.Progress = testWriter{t}
	if err := a.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("Stop took %s", time.Since(begin).Round(time.Millisecond))
}

func assertGone(t *testing.T, pid int, startTime uint64, dataDir string) {
	t.Helper()
	if processAlive(pid, startTime) {
		t.Errorf("agent pid %d still alive", pid)
	}
	if left := processesReferencing(dataDir); len(left) > 0 {
		for _, p := range left {
			cmd, _ := os.ReadFile(filepathJoinProc(p, "cmdline"))
			t.Errorf("pid %d still references %s: %q", p, dataDir, cmd)
		}
	}
	mounts, err := readMounts()
	if err == nil {
		if left := mountsUnder(mounts, dataDir); len(left) > 0 {
			t.Errorf("still mounted: %q", left)
		}
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data dir %s still exists (stat err %v)", dataDir, err)
	}
}

func filepathJoinProc(pid int, name string) string {
	return filepath.Join("/proc", strconv.Itoa(pid), name)
}

func intp(i int) *int { return &i }

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func sleepJob(id, driver string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("g", 1)
	tg.RestartPolicy = &api.RestartPolicy{Attempts: intp(0), Mode: pointer("fail")}
	tg.ReschedulePolicy = &api.ReschedulePolicy{Attempts: intp(0), Unlimited: pointer(false)}
	task := api.NewTask("t", driver).
		SetConfig("command", "/bin/sleep").
		SetConfig("args", []string{sleepSeconds}).
		Require(&api.Resources{CPU: intp(20), MemoryMB: intp(16)})
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

func pointer[T any](v T) *T { return &v }

// waitRunning waits until the job's allocation is running and returns it.
func waitRunning(t *testing.T, c *api.Client, jobID string) *api.AllocationListStub {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		allocs, _, err := c.Jobs().Allocations(jobID, false, nil)
		if err == nil {
			for _, al := range allocs {
				if al.ClientStatus == api.AllocClientStatusRunning {
					return al
				}
				last = al.ClientStatus
				if al.ClientStatus == api.AllocClientStatusFailed {
					full, _, _ := c.Allocations().Info(al.ID, nil)
					t.Fatalf("alloc %s of %s failed: %s", al.ID, jobID, allocEvents(full))
				}
			}
		} else {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("job %s not running after 90s (last: %s)", jobID, last)
	return nil
}

func allocEvents(a *api.Allocation) string {
	if a == nil {
		return "?"
	}
	var b strings.Builder
	for task, st := range a.TaskStates {
		for _, e := range st.Events {
			b.WriteString(task + ": " + e.Type + " " + e.DisplayMessage + "; ")
		}
	}
	return b.String()
}

func TestAgentLifecycle(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	meta := map[string]string{"berth.test": `quote"and${interp}`}
	a := startAgent(t, Options{NodeClass: "devtest", Meta: meta})
	pid, startTime, dataDir := a.PID, a.StartTime, a.DataDir
	if !a.Server || !a.OwnsDataDir || a.Token != "" {
		t.Errorf("unexpected agent %+v", exported(a))
	}

	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	node, _, err := c.Nodes().Info(a.NodeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if node.Status != api.NodeStatusReady || node.Name != DefaultName || node.NodeClass != "devtest" || node.Datacenter != "dc1" {
		t.Errorf("node: status %q name %q class %q dc %q", node.Status, node.Name, node.NodeClass, node.Datacenter)
	}
	if got := node.Meta["berth.test"]; got != meta["berth.test"] {
		t.Errorf("node meta = %q, want %q", got, meta["berth.test"])
	}
	for _, d := range DefaultDrivers() {
		if info := node.Drivers[d]; info == nil || !info.Healthy {
			t.Errorf("driver %s not healthy: %+v", d, info)
		}
	}

	// Nomad Variables.
	if _, _, err := c.Variables().Create(&api.Variable{Path: "berth/test", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatalf("create variable: %v", err)
	}
	v, _, err := c.Variables().Read("berth/test", nil)
	if err != nil || v.Items["k"] != "v" {
		t.Fatalf("read variable: %v %+v", err, v)
	}

	// raw_exec task.
	if _, _, err := c.Jobs().Register(sleepJob("raw", "raw_exec"), nil); err != nil {
		t.Fatalf("register raw: %v", err)
	}
	waitRunning(t, c, "raw")

	// Dynamic host volume (mkdir plugin) mounted into an exec task.
	created, _, err := c.HostVolumes().Create(&api.HostVolumeCreateRequest{Volume: &api.HostVolume{
		Name: "data", PluginID: "mkdir", NodeID: a.NodeID,
		RequestedCapabilities: []*api.HostVolumeCapability{{
			AttachmentMode: api.HostVolumeAttachmentModeFilesystem,
			AccessMode:     api.HostVolumeAccessModeSingleNodeWriter,
		}},
	}}, nil)
	if err != nil {
		t.Fatalf("create host volume: %v", err)
	}
	vol := created.Volume
	if !pollUntil(context.Background(), 30*time.Second, func() bool {
		got, _, err := c.HostVolumes().Get(vol.ID, nil)
		if err == nil {
			vol = got
		}
		return err == nil && got.State == api.HostVolumeStateReady
	}) {
		t.Fatalf("host volume not ready: %+v", vol)
	}
	if !pathWithin(vol.HostPath, dataDir) {
		t.Errorf("host volume path %s is not under the data dir", vol.HostPath)
	}
	job := sleepJob("exec", "exec")
	tg := job.TaskGroups[0]
	tg.Volumes = map[string]*api.VolumeRequest{"data": {
		Name: "data", Type: "host", Source: "data",
		AccessMode: "single-node-writer", AttachmentMode: "file-system",
	}}
	tg.Tasks[0].SetConfig("command", "/bin/sh").
		SetConfig("args", []string{"-c", "echo hello > /data/hello && exec sleep " + sleepSeconds})
	tg.Tasks[0].VolumeMounts = []*api.VolumeMount{{Volume: pointer("data"), Destination: pointer("/data")}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register exec: %v", err)
	}
	waitRunning(t, c, "exec")
	if !pollUntil(context.Background(), 10*time.Second, func() bool {
		b, err := os.ReadFile(filepath.Join(vol.HostPath, "hello"))
		return err == nil && string(b) == "hello\n"
	}) {
		t.Errorf("exec task did not write into the host volume %s", vol.HostPath)
	}

	if len(processesReferencing(dataDir)) < 2 {
		t.Errorf("expected agent and task processes referencing %s", dataDir)
	}
	sleeps := sleepProcesses(t, dataDir)
	if len(sleeps) != 2 {
		t.Errorf("want 2 sleep task processes, found %v", sleeps)
	}

	// Stop through saved state, as the CLI does.
	state := filepath.Join(t.TempDir(), "agent.json")
	if err := a.Save(state); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(state)
	if err != nil {
		t.Fatal(err)
	}
	stopAgent(t, loaded)
	assertGone(t, pid, startTime, dataDir)
	for _, p := range sleeps {
		if processAlive(p, 0) {
			t.Errorf("task process %d survived Stop", p)
		}
	}
	if err := loaded.Stop(context.Background()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if err := a.Stop(context.Background()); err != nil {
		t.Errorf("Stop of the original handle: %v", err)
	}
}

func TestAgentStopAfterCrash(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	a := startAgent(t, Options{Name: "berth-crash", ChrootEnv: MinimalChrootEnv()})
	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	// Both drivers: raw_exec tasks keep their cwd under the data dir, exec
	// tasks live in their own namespaces and are found by cgroup.
	for _, driver := range []string{"raw_exec", "exec"} {
		if _, _, err := c.Jobs().Register(sleepJob("orphan-"+driver, driver), nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, driver := range []string{"raw_exec", "exec"} {
		waitRunning(t, c, "orphan-"+driver)
	}
	sleeps := sleepProcesses(t, a.DataDir)
	if len(sleeps) != 2 {
		t.Fatalf("want 2 sleep task processes, found %v", sleeps)
	}

	// Kill only the agent, as a crash would: its tasks keep running.
	if err := syscall.Kill(a.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitGone(a.PID, a.StartTime, 10*time.Second) {
		t.Fatal("agent survived SIGKILL")
	}
	orphans := processesReferencing(a.DataDir)
	if len(orphans) == 0 {
		t.Fatal("expected orphaned task processes after the agent died")
	}
	t.Logf("orphans after agent crash: %v", orphans)
	stopAgent(t, a)
	assertGone(t, a.PID, a.StartTime, a.DataDir)
	for _, p := range append(orphans, sleeps...) {
		if processAlive(p, 0) {
			t.Errorf("orphan %d survived", p)
		}
	}
}

// sleepSeconds is unusual so that sleepProcesses finds only our tasks.
const sleepSeconds = "3607"

// sleepProcesses returns the PIDs of the sleep task processes of the agent
// whose data dir is dataDir: only those, so that another agent's tests
// running on the same machine (another checkout's make test) do not count.
func sleepProcesses(t *testing.T, dataDir string) []int {
	t.Helper()
	var out []int
	for _, pid := range processesReferencing(dataDir) {
		cmd, err := os.ReadFile(filepathJoinProc(pid, "cmdline"))
		if err == nil && (string(cmd) == "/bin/sleep\x00"+sleepSeconds+"\x00" || string(cmd) == "sleep\x00"+sleepSeconds+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}

func TestAgentTLS(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	files, caPEM, err := GenerateTLS(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, Options{TLS: files})
	if !strings.HasPrefix(a.Addr, "https://") {
		t.Fatalf("Addr = %s, want https", a.Addr)
	}
	c, err := api.NewClient(&api.Config{Address: a.Addr, TLSConfig: &api.TLSConfig{CACertPEM: []byte(caPEM)}})
	if err != nil {
		t.Fatal(err)
	}
	node, _, err := c.Nodes().Info(a.NodeID, nil)
	if err != nil {
		t.Fatalf("node info over TLS: %v", err)
	}
	if node.Status != api.NodeStatusReady || !node.TLSEnabled {
		t.Errorf("node status %q TLSEnabled %v", node.Status, node.TLSEnabled)
	}
	noCA, err := api.NewClient(&api.Config{Address: a.Addr, TLSConfig: &api.TLSConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noCA.Agent().Self(); err == nil {
		t.Error("request without the CA unexpectedly succeeded")
	}
	pid, st, dir := a.PID, a.StartTime, a.DataDir
	stopAgent(t, a)
	assertGone(t, pid, st, dir)
}

func TestAgentACL(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	a := startAgent(t, Options{ACL: true})
	if a.Token == "" {
		t.Fatal("no bootstrap token")
	}
	anon, err := api.NewClient(&api.Config{Address: a.Addr})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = anon.Jobs().List(nil)
	if !isStatus(err, 403) {
		t.Errorf("anonymous job list: err = %v, want 403", err)
	}
	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().List(nil); err != nil {
		t.Errorf("job list with token: %v", err)
	}
	self, _, err := c.ACLTokens().Self(nil)
	if err != nil || self.Type != "management" {
		t.Errorf("token self: %v %+v", err, self)
	}
	// Stop must be able to purge jobs with the token.
	if _, _, err := c.Jobs().Register(sleepJob("acl", "raw_exec"), nil); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "acl")
	pid, st, dir := a.PID, a.StartTime, a.DataDir
	stopAgent(t, a)
	assertGone(t, pid, st, dir)
}

// TestAgentACLSkipBootstrap: an ACL agent left for its user to bootstrap
// is ready with no token, and bootstrapping it afterwards works.
func TestAgentACLSkipBootstrap(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	a := startAgent(t, Options{ACL: true, ACLSkipBootstrap: true})
	if a.Token != "" {
		t.Fatal("the agent has a token; want none before the bootstrap")
	}
	anon, err := api.NewClient(&api.Config{Address: a.Addr})
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := anon.ACLTokens().Bootstrap(nil)
	if err != nil || tok.Type != "management" {
		t.Fatalf("bootstrapping the fresh agent: %v %+v", err, tok)
	}
	a.Token = tok.SecretID
	pid, st, dir := a.PID, a.StartTime, a.DataDir
	stopAgent(t, a)
	assertGone(t, pid, st, dir)
}

// TestAgentFixedSize starts an agent with a fixed client size and checks
// that its node reports exactly that size, all of it allocatable. (The
// provider's TestAccOutsideJob_capacityIsEnforced shows the scheduler
// enforcing such a size.)
func TestAgentFixedSize(t *testing.T) {
	t.Parallel()
	requireNomad(t)
	const cpu, mem, disk = 1000, 1024, 2048
	a := startAgent(t, Options{CPUTotalMHz: cpu, MemoryTotalMB: mem, DiskTotalMB: disk})
	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	node, _, err := c.Nodes().Info(a.NodeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := node.NodeResources
	if r == nil || r.Cpu.CpuShares != cpu || r.Memory.MemoryMB != mem || r.Disk.DiskMB != disk {
		t.Fatalf("node resources = %+v, want cpu %d MHz, memory %d MB, disk %d MB", r, cpu, mem, disk)
	}
	if rr := node.ReservedResources; rr != nil && (rr.Cpu.CpuShares != 0 || rr.Memory.MemoryMB != 0 || rr.Disk.DiskMB != 0) {
		t.Errorf("node reserves %+v; the fixed size should be all allocatable", rr)
	}
}

func TestStartRejectsNegativeSize(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nomad")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Bin: bin, MemoryTotalMB: -1})
	if err == nil || !strings.Contains(err.Error(), "cannot be negative") {
		t.Fatalf("Start with a negative memory size: err = %v", err)
	}
}

func TestStartRefusesForeignDataDir(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nomad")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "precious"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Bin: bin, DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err = %v, want refusal of a non-empty foreign data dir", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "precious")); err != nil {
		t.Errorf("foreign data dir touched: %v", err)
	}
}

func TestStartFailureReportsLog(t *testing.T) {
	// A fake nomad that prints something and exits: Start must fail fast
	// (no waiting for the deadline), include the log tail and clean up.
	bin := filepath.Join(t.TempDir(), "nomad")
	script := "#!/bin/sh\necho \"==> Error starting agent: boom from fake nomad\" >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	begin := time.Now()
	_, err := Start(context.Background(), Options{Bin: bin, DataDir: dataDir, Timeout: 30 * time.Second})
	if err == nil {
		t.Fatal("Start succeeded with a failing binary")
	}
	if !strings.Contains(err.Error(), "boom from fake nomad") || !strings.Contains(err.Error(), "exited") {
		t.Errorf("error lacks the log tail: %v", err)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Start took %s to notice the exit", d)
	}
	if cfg, err := os.ReadFile(filepath.Join(dataDir, configFileName)); err != nil || !strings.Contains(string(cfg), "bootstrap_expect = 1") {
		t.Errorf("config not written: %v", err)
	}
}

func TestStartFailureRemovesOwnedDataDir(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nomad")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := Start(context.Background(), Options{Bin: bin}); err == nil {
		t.Fatal("Start succeeded with a failing binary")
	}
	ents, _ := os.ReadDir(tmp)
	if len(ents) != 0 {
		t.Errorf("owned data dir left behind: %v", ents)
	}
}
