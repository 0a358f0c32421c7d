package bench

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Phase is one timed Terraform command.
type Phase string

// The phases of one cycle, in order: create N, plan them unchanged, apply
// a change to one of them, destroy N.
const (
	Apply   Phase = "apply"
	Plan    Phase = "plan"
	Change  Phase = "change"
	Destroy Phase = "destroy"
)

// Phases lists the phases in cycle order.
var Phases = []Phase{Apply, Plan, Change, Destroy}

// changeVar is the configurations' variable that changes resource 0
// (the Change phase sets it).
const changeVar = "bench_change"

// Sample is what one Terraform command cost.
type Sample struct {
	Wall         time.Duration  `json:"wall_ns"`
	Requests     int            `json:"requests"`
	Chain        int            `json:"chain,omitempty"` // the longest chain of requests in sequence (LongestChain)
	Endpoints    map[string]int `json:"endpoints,omitempty"`
	TerraformCPU time.Duration  `json:"terraform_cpu_ns"`                // user+sys of terraform itself
	PluginCPU    time.Duration  `json:"plugin_cpu_ns"`                   // user+sys of every plugin process it started
	AgentCPU     time.Duration  `json:"agent_cpu_ns"`                    // user+sys of the Nomad agent process meanwhile
	PluginPeak   int64          `json:"plugin_peak_rss_bytes,omitempty"` // largest peak resident memory of a plugin process it started
	PlanChanged  bool           `json:"plan_changed,omitempty"`
}

// Options configure a Runner.
type Options struct {
	Terraform   string // terraform CLI
	N           int    // resources per configuration
	Runs        int    // cycles per variant
	Parallelism int    // terraform -parallelism
	Work        string // scratch directory (created; the caller removes it)
	NomadAddr   string // the agent
	AgentPID    int    // the agent's PID, for its CPU (0: not measured)
	Berth       string // terraform-provider-berth binary
	Peer        string // terraform-provider-nomad binary, gzipped or not ("" skips the peer rows)
	Base        string // another terraform-provider-berth binary, run beside Berth in the same cycles ("" skips the base rows)
	Only        []string
	Growth      bool          // every job has a constraint no node meets; only the variants that do not wait run
	RTT         time.Duration // added to every request through the proxy (a cluster across a network)
	PprofDir    string        // when set, each command's plugins get BERTH_PPROF_DIR=<dir>/<variant>/<run>-<phase>
	Progress    io.Writer     // one line per command
}

// Runner runs the cycles.
type Runner struct {
	o        Options
	proxy    *Proxy
	rusage   string
	cliCfg   string
	realDir  string
	baseDir  string // holds the -base binary under berth's plugin name
	variants []Variant
}

// NewRunner prepares the plugin directories, the CLI configuration and one
// working directory per variant, and starts the counting proxy.
func NewRunner(o Options) (*Runner, error) {
	r := &Runner{o: o, rusage: filepath.Join(o.Work, "rusage"), realDir: filepath.Join(o.Work, "real"), baseDir: filepath.Join(o.Work, "real-base")}
	for _, d := range []string{r.rusage, r.realDir, r.baseDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	bins := map[string]string{berthProvider.Source: o.Berth}
	if o.Peer != "" {
		bins[peerProvider.Source] = o.Peer
	}
	for _, p := range []Provider{berthProvider, peerProvider} {
		src, ok := bins[p.Source]
		if !ok {
			continue
		}
		if err := installReal(src, filepath.Join(r.realDir, p.Binary)); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Source, err)
		}
		dir := filepath.Join(o.Work, "plugins", strings.ReplaceAll(p.Source, "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(self, filepath.Join(dir, p.Binary)); err != nil {
			return nil, err
		}
		dirs[p.Source] = dir
	}
	if o.Base != "" {
		// The base binary runs under berth's name and source through the
		// same shim; only the shim's real directory differs (command).
		if err := installReal(o.Base, filepath.Join(r.baseDir, berthProvider.Binary)); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	r.cliCfg = filepath.Join(o.Work, "terraformrc")
	if err := os.WriteFile(r.cliCfg, []byte(CLIConfig(dirs)), 0o644); err != nil {
		return nil, err
	}
	if r.proxy, err = StartProxy(o.NomadAddr, o.RTT); err != nil {
		return nil, err
	}
	for _, v := range Variants() {
		// A base row runs when its berth row does and a base binary is given.
		if key := cmp.Or(v.Base, v.Key); len(o.Only) > 0 && !slices.Contains(o.Only, key) || v.Base != "" && o.Base == "" {
			continue
		}
		if o.Growth && !v.GrowthVariant() {
			if slices.Contains(o.Only, v.Key) {
				return nil, fmt.Errorf("%s waits for allocations, and in growth mode no job is ever placed: run %s", v.Key, strings.Join(GrowthKeys(), ", "))
			}
			continue
		}
		if v.Provider != nil && dirs[v.Provider.Source] == "" {
			continue
		}
		dir := filepath.Join(o.Work, v.Key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		cfg := v.Config(o.N, r.proxy.URL)
		if o.Growth {
			cfg = v.GrowthConfig(o.N, r.proxy.URL)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
			return nil, err
		}
		r.variants = append(r.variants, v)
	}
	if len(r.variants) == 0 {
		return nil, errors.New("no variant to run")
	}
	return r, nil
}

// Close stops the proxy.
func (r *Runner) Close() error { return r.proxy.Close() }

// Variants are the variants this runner measures.
func (r *Runner) Variants() []Variant { return r.variants }

// installReal puts the plugin binary src at dst: a symlink, or the
// decompressed file when src is gzipped.
func installReal(src, dst string) error {
	src, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	magic := make([]byte, 2)
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return os.Symlink(src, dst)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Run runs opts.Runs cycles (apply, plan, destroy) of every variant, one
// variant after another within a run, and returns the samples by variant
// key, phase and run.
func (r *Runner) Run(ctx context.Context) (map[string]map[Phase][]Sample, error) {
	out := map[string]map[Phase][]Sample{}
	for run := 1; run <= r.o.Runs; run++ {
		for _, v := range r.variants {
			samples, err := r.cycle(ctx, v, run)
			if err != nil {
				return out, fmt.Errorf("%s, run %d: %w", v.Key, run, err)
			}
			if out[v.Key] == nil {
				out[v.Key] = map[Phase][]Sample{}
			}
			for ph, s := range samples {
				out[v.Key][ph] = append(out[v.Key][ph], s)
			}
		}
	}
	return out, nil
}

func (r *Runner) cycle(ctx context.Context, v Variant, run int) (map[Phase]Sample, error) {
	if err := r.quiesce(ctx); err != nil {
		return nil, err
	}
	par := "-parallelism=" + strconv.Itoa(r.o.Parallelism)
	args := map[Phase][]string{
		Apply:   {"apply", "-auto-approve", "-input=false", "-no-color", par},
		Plan:    {"plan", "-input=false", "-no-color", "-detailed-exitcode", par},
		Change:  {"apply", "-auto-approve", "-input=false", "-no-color", par, "-var=" + changeVar + "=true"},
		Destroy: {"destroy", "-auto-approve", "-input=false", "-no-color", par},
	}
	out := map[Phase]Sample{}
	for _, ph := range Phases {
		if ph == Plan && v.Provider != nil {
			settle := r.settle
			if r.o.Growth {
				settle = r.settleUnplaced
			}
			if err := settle(ctx, v, run); err != nil {
				// Leave nothing behind for the next variant.
				_, _ = r.command(ctx, v, run, Destroy, args[Destroy])
				return nil, err
			}
		}
		s, err := r.command(ctx, v, run, ph, args[ph])
		if err != nil {
			if ph != Destroy {
				// Leave nothing behind for the next variant.
				_, _ = r.command(ctx, v, run, Destroy, args[Destroy])
			}
			return nil, err
		}
		out[ph] = s
		note := ""
		if s.PlanChanged {
			note = "  (plan NOT empty)"
		}
		fmt.Fprintf(r.o.Progress, "bench: N=%d run %d/%d %-13s %-7s %7.2fs %5d requests (chain %d)  cpu terraform %.2fs plugin %.2fs agent %.2fs  plugin peak %s%s\n",
			r.o.N, run, r.o.Runs, v.Key, ph, s.Wall.Seconds(), s.Requests, s.Chain, s.TerraformCPU.Seconds(), s.PluginCPU.Seconds(),
			s.AgentCPU.Seconds(), mib(s.PluginPeak), note)
	}
	return out, nil
}

// command runs one terraform command of v and measures it.
func (r *Runner) command(ctx context.Context, v Variant, run int, ph Phase, args []string) (Sample, error) {
	dir := filepath.Join(r.o.Work, v.Key)
	logFile := filepath.Join(dir, fmt.Sprintf("run%d-%s.log", run, ph))
	logOut, err := os.Create(logFile)
	if err != nil {
		return Sample{}, err
	}
	defer logOut.Close()
	env := r.env()
	if v.Base != "" {
		env = append(env, envRealDir+"="+r.baseDir) // the later value wins
	}
	if r.o.PprofDir != "" && v.Provider != nil {
		pd := filepath.Join(r.o.PprofDir, v.Key, fmt.Sprintf("%d-%s", run, ph))
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return Sample{}, err
		}
		env = append(env, "BERTH_PPROF_DIR="+pd)
	}
	if _, _, _, err := pluginUsage(r.rusage); err != nil { // drop leftovers
		return Sample{}, err
	}
	cmd := exec.CommandContext(ctx, r.o.Terraform, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, logOut, logOut
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // let terraform stop its plugins
	cmd.WaitDelay = time.Minute
	_, _ = r.proxy.Reset()
	agent0 := agentCPU(r.o.AgentPID)
	start := time.Now()
	runErr := cmd.Run()
	s := Sample{Wall: time.Since(start)}
	s.AgentCPU = agentCPU(r.o.AgentPID) - agent0
	s.Endpoints, s.Chain = r.proxy.Reset()
	s.Requests = Total(s.Endpoints)
	var exit *exec.ExitError
	if ph == Plan && errors.As(runErr, &exit) && exit.ExitCode() == 2 {
		s.PlanChanged, runErr = true, nil
	}
	if runErr != nil {
		return s, fmt.Errorf("terraform %s: %w (output in %s):\n%s", ph, runErr, logFile, tail(logFile, 30))
	}
	pu, ps, peak, err := pluginUsage(r.rusage)
	if err != nil {
		return s, err
	}
	tu, ts := cpuOf(cmd.ProcessState)
	s.PluginCPU, s.PluginPeak = pu+ps, peak
	s.TerraformCPU = max(tu+ts-s.PluginCPU, 0) // terraform's rusage includes the plugins it waited for
	return s, nil
}

// env is the environment of every terraform command: the caller's, without
// NOMAD_* (the configurations name the proxy), plus the CLI configuration
// and the shim's directories.
func (r *Runner) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NOMAD_") || strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") || strings.HasPrefix(kv, "BERTH_PPROF_DIR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TF_CLI_CONFIG_FILE="+r.cliCfg,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		envRealDir+"="+r.realDir,
		envRusageDir+"="+r.rusage,
	)
}

func tail(file string, lines int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	ls := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(ls[max(len(ls)-lines, 0):], "\n")
}

// quiesce waits until no allocation is pending or running, then has Nomad
// collect garbage, so every cycle starts from the same empty agent.
func (r *Runner) quiesce(ctx context.Context) error {
	busy, err := r.waitAgent(ctx, 5*time.Minute, func(a allocStub) bool {
		return a.ClientStatus == "pending" || a.ClientStatus == "running"
	}, nil)
	if err != nil {
		return err
	}
	if len(busy) > 0 {
		return fmt.Errorf("still live after destroy: %s", strings.Join(busy, "; "))
	}
	return r.agent(ctx, http.MethodPut, "/v1/system/gc", nil)
}

// settle waits until no allocation is pending and no deployment running,
// so a plan after an apply that did not wait measures the same steady
// cluster as one after an apply that did. A job that does not settle in
// two minutes (a task that failed to start on a loaded machine, say) is
// reported and the plan runs anyway.
func (r *Runner) settle(ctx context.Context, v Variant, run int) error {
	busy, err := r.waitAgent(ctx, 2*time.Minute, func(a allocStub) bool {
		return a.ClientStatus == "pending"
	}, func(d deploymentStub) bool {
		return d.Status == "running" || d.Status == "pending" || d.Status == "initializing"
	})
	if len(busy) > 0 {
		fmt.Fprintf(r.o.Progress, "bench: run %d %s: WARNING: not settled after apply, planning anyway: %s\n",
			run, v.Key, strings.Join(busy, "; "))
	}
	return err
}

type allocStub struct{ ID, JobID, ClientStatus, DesiredStatus string }

type deploymentStub struct{ ID, JobID, Status, StatusDescription string }

// waitAgent polls the agent until no allocation or deployment is busy, for
// at most limit, and describes those still busy then. It talks to the
// agent directly: these requests are not counted.
func (r *Runner) waitAgent(ctx context.Context, limit time.Duration, allocBusy func(allocStub) bool, depBusy func(deploymentStub) bool) ([]string, error) {
	deadline := time.Now().Add(limit)
	for {
		var allocs []allocStub
		var deps []deploymentStub
		if err := r.agent(ctx, http.MethodGet, "/v1/allocations", &allocs); err != nil {
			return nil, err
		}
		if depBusy != nil {
			if err := r.agent(ctx, http.MethodGet, "/v1/deployments", &deps); err != nil {
				return nil, err
			}
		}
		var busy []string
		for _, a := range allocs {
			if allocBusy(a) {
				busy = append(busy, fmt.Sprintf("job %s allocation %.8s %s (desired %s)", a.JobID, a.ID, a.ClientStatus, a.DesiredStatus))
			}
		}
		for _, d := range deps {
			if depBusy(d) {
				busy = append(busy, fmt.Sprintf("job %s deployment %.8s %s: %s", d.JobID, d.ID, d.Status, d.StatusDescription))
			}
		}
		if len(busy) == 0 || time.Now().After(deadline) {
			return busy, nil
		}
		select {
		case <-ctx.Done():
			return busy, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (r *Runner) agent(ctx context.Context, method, path string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.o.NomadAddr+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(body))
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(body, into)
}

// NomadVersion asks the agent for its version.
func (r *Runner) NomadVersion(ctx context.Context) string {
	var self struct {
		Config struct{ Version struct{ Version string } }
	}
	if err := r.agent(ctx, http.MethodGet, "/v1/agent/self", &self); err != nil {
		return "?"
	}
	return self.Config.Version.Version
}

// agentCPU is the user+sys CPU the process pid has used so far, from
// /proc/<pid>/stat (in clock ticks of 10 ms); 0 when unknown.
func agentCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): state is the
	// first, utime the 12th and stime the 13th.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+s) * 10 * time.Millisecond
}

type jobStub struct{ ID, Status string }

type evalStub struct{ ID, JobID, Status string }

// settleUnplaced is settle in growth mode: it waits until the scheduler has
// seen every job of v (no evaluation of theirs pending), then checks what
// growth mode promises: all N jobs registered and not one allocation. A
// placed job would make the figures measure the scheduler again, so it
// fails the run. (Nomad still opens a deployment for each job, which stays
// running until its progress deadline; the plan does not wait for those.)
func (r *Runner) settleUnplaced(ctx context.Context, v Variant, _ int) error {
	prefix := jobName(v.Key)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var jobs []jobStub
		var allocs []allocStub
		var evals []evalStub
		if err := r.agent(ctx, http.MethodGet, "/v1/jobs?prefix="+prefix, &jobs); err != nil {
			return err
		}
		if err := r.agent(ctx, http.MethodGet, "/v1/allocations", &allocs); err != nil {
			return err
		}
		if err := r.agent(ctx, http.MethodGet, "/v1/evaluations", &evals); err != nil {
			return err
		}
		pending, err := checkUnplaced(prefix, r.o.N, jobs, allocs, evals)
		if err != nil || pending == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d evaluations of %s* still pending after 2 minutes", pending, prefix)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// checkUnplaced checks a growth-mode apply in Nomad's lists: n jobs named
// prefix<i>, none with an allocation. It returns how many of their
// evaluations are still pending (the check is final only at 0).
func checkUnplaced(prefix string, n int, jobs []jobStub, allocs []allocStub, evals []evalStub) (int, error) {
	registered := 0
	for _, j := range jobs {
		if strings.HasPrefix(j.ID, prefix) {
			registered++
		}
	}
	if registered != n {
		return 0, fmt.Errorf("growth mode: %d jobs %s* registered after apply, want %d", registered, prefix, n)
	}
	var placed []string
	for _, a := range allocs {
		if strings.HasPrefix(a.JobID, prefix) {
			placed = append(placed, fmt.Sprintf("job %s allocation %.8s %s", a.JobID, a.ID, a.ClientStatus))
		}
	}
	if len(placed) > 0 {
		return 0, fmt.Errorf("growth mode: jobs were placed despite constraint %s %s (does a node set that meta key?): %s",
			neverAttribute, neverOperator, strings.Join(placed, "; "))
	}
	pending := 0
	for _, e := range evals {
		if strings.HasPrefix(e.JobID, prefix) && e.Status == "pending" {
			pending++
		}
	}
	return pending, nil
}
