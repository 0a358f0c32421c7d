// Command bench measures berth_instance against terraform_data (the floor)
// and, when given, the other Nomad provider's nomad_job, on a running Nomad
// agent; scripts/bench.sh (make bench) starts the agent and runs it.
//
//	bench -agent-state FILE -provider PATH [-peer PATH] [-n 200] [-runs 3] [-parallelism 10]
//	      [-only floor,berth-nowait,...] [-json FILE] [-baseline FILE] [-base PATH] [-work DIR]
//	      [-growth [-ns 100,300,1000]]
//
// It prints the tables and a PASS/FAIL line per target, and exits 1 when a
// target fails, 2 when the bench itself could not run. With -growth the
// jobs never place (a constraint no node meets), only the variants that do
// not wait run, no target is judged, and with -ns it runs at each N in turn
// and ends with the growth table. BERTH_PPROF_DIR, when
// set, reaches the plugins as <dir>/<variant>/<run>-<phase>.
//
// Started under the name terraform-provider-* it is the plugin shim that
// measures a plugin's CPU (see internal/bench/shim.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/berthhq/terraform-provider-berth/internal/bench"
)

func main() {
	if bench.IsShim(os.Args[0]) {
		os.Exit(bench.RunShim(os.Args[0], os.Args[1:]))
	}
	failed, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if failed {
		fmt.Fprintln(os.Stderr, "bench: a target failed")
		os.Exit(1)
	}
}

func run(args []string) (bool, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	agentState := fs.String("agent-state", "", "devagent state file of the Nomad agent to use (its address and PID)")
	nomadAddr := fs.String("nomad", "", "Nomad address, instead of -agent-state (the agent's CPU is then not measured)")
	tf := fs.String("terraform", "terraform", "terraform CLI")
	provider := fs.String("provider", "bin/terraform-provider-berth", "berth provider binary")
	peer := fs.String("peer", "", "terraform-provider-nomad binary, plain or gzipped (adds the nomad_job rows)")
	baseBin := fs.String("base", "", "another terraform-provider-berth binary (an earlier commit), run beside -provider in the same cycles: fail any berth figure more than 10% worse than its")
	n := fs.Int("n", 200, "resources per configuration")
	runs := fs.Int("runs", 3, "apply/plan/destroy cycles per variant; figures are their median")
	par := fs.Int("parallelism", 10, "terraform -parallelism")
	only := fs.String("only", "", "comma-separated variants to run (floor, berth-nowait, berth-wait, peer-detach, peer-wait)")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	baseline := fs.String("baseline", "", "JSON from an earlier run: fail any berth figure more than 10% worse")
	work := fs.String("work", "", "scratch directory (default: a temporary one, removed at the end)")
	growth := fs.Bool("growth", false, "growth mode: every job has a constraint no node meets, so it registers but never places; only the variants that do not wait run")
	rtt := fs.Duration("rtt", 0, "round-trip time added to every request (e.g. 25ms): a cluster across a network")
	nsFlag := fs.String("ns", "", "growth mode at each of these comma-separated N in turn, then the growth table (implies -growth, replaces -n)")
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	if fs.NArg() > 0 {
		return false, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *n < 1 || *runs < 1 || *par < 1 {
		return false, errors.New("-n, -runs and -parallelism must be at least 1")
	}
	ns := []int{*n}
	if *nsFlag != "" {
		var err error
		if ns, err = bench.ParseNs(*nsFlag); err != nil {
			return false, err
		}
		*growth = true
	}
	if *growth && *baseline != "" {
		return false, errors.New("-baseline judges the placing bench's targets; growth mode judges none")
	}

	addr, pid := *nomadAddr, 0
	if *agentState != "" {
		data, err := os.ReadFile(*agentState)
		if err != nil {
			return false, err
		}
		var st struct {
			Addr string `json:"addr"`
			PID  int    `json:"pid"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			return false, fmt.Errorf("%s: %w", *agentState, err)
		}
		addr, pid = st.Addr, st.PID
	}
	if addr == "" {
		return false, errors.New("give -agent-state or -nomad")
	}
	tfPath, err := exec.LookPath(*tf)
	if err != nil {
		return false, err
	}
	var base *bench.Report
	if *baseline != "" {
		if base, err = bench.LoadReport(*baseline); err != nil {
			return false, err
		}
	}
	dir := *work
	if dir == "" {
		if dir, err = os.MkdirTemp("", "berth-bench-"); err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
	}
	var onlyList []string
	if *only != "" {
		onlyList = strings.Split(*only, ",")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var g bench.Growth
	failed := false
	for _, n := range ns {
		workN := dir
		if len(ns) > 1 {
			workN = filepath.Join(dir, fmt.Sprintf("n%d", n))
		}
		r, err := bench.NewRunner(bench.Options{
			Terraform: tfPath, N: n, Runs: *runs, Parallelism: *par, Work: workN,
			NomadAddr: addr, AgentPID: pid, Berth: *provider, Peer: *peer, Base: *baseBin, Only: onlyList,
			Growth: *growth, RTT: *rtt, PprofDir: os.Getenv("BERTH_PPROF_DIR"), Progress: os.Stderr,
		})
		if err != nil {
			return false, err
		}
		samples, runErr := r.Run(ctx)
		rep := bench.NewReport(r.Variants(), samples)
		rep.N, rep.Runs, rep.Parallelism, rep.CPUs, rep.Growth, rep.RTT = n, *runs, *par, runtime.NumCPU(), *growth, *rtt
		rep.Terraform, rep.Nomad = terraformVersion(tfPath), r.NomadVersion(ctx)
		_ = r.Close()
		if runErr != nil {
			if len(rep.Rows) > 0 {
				fmt.Fprintln(os.Stderr, "bench: stopped early; what was measured until then (not a result):")
				rep.Print(os.Stderr, nil)
			}
			g.Print(os.Stderr)
			return false, runErr
		}
		switch {
		case *growth && *rtt > 0:
			failed = rep.Print(os.Stdout, rep.RemoteTargets(*peer != "")) || failed
		case *growth:
			// The targets are those of the placing bench: not judged here.
			rep.Print(os.Stdout, nil)
		default:
			failed = rep.Print(os.Stdout, rep.Targets(*peer != "", base))
		}
		g.Reports = append(g.Reports, rep)
	}
	if len(ns) > 1 {
		g.Print(os.Stdout)
	}
	if *jsonOut != "" {
		var err error
		if len(ns) > 1 {
			err = g.WriteJSON(*jsonOut)
		} else {
			err = g.Reports[0].WriteJSON(*jsonOut)
		}
		if err != nil {
			return false, err
		}
	}
	return failed, nil
}

func terraformVersion(tf string) string {
	out, err := exec.Command(tf, "version", "-json").Output()
	if err != nil {
		return "?"
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if json.Unmarshal(out, &v) != nil {
		return "?"
	}
	return v.Version
}
