// Command schemacurve measures Terraform core's CPU per resource on a
// no-change refresh plan (`terraform plan -refresh=true`) against the shape
// and size of the resource's schema, with the synthetic curve_thing
// resource (package schemacurve), and optionally terraform_data (the floor)
// and berth_instance. From the repository root:
//
//	go build -o /tmp/schemacurve ./internal/bench/schemacurve/cmd/schemacurve
//	/tmp/schemacurve -work /tmp/curve-work -shapes flat,single,list -sizes 10,50,200 -fills 0.1,1 -floor -out curve.jsonl
//	/tmp/schemacurve -report curve.jsonl    # the tables again
//
// Each case writes a configuration of -n resources, applies it and runs
// -runs plans; then the same with one resource. Core CPU is terraform's
// user+sys less its plugins' (measured by a shim); the figure per resource
// is (median at n - median at 1) / (n-1). With -profile DIR (and a
// -terraform built to write TF_CPUPROFILE), each case also runs
// -profile-runs plans at n under the profiler into DIR/<case>-<i>.pprof.
//
// -classify DIR/<case> then groups the profiles' samples (see
// schemacurve.Groups) and prints each group's CPU per resource: its mean
// per plan at n less that at 1, over n-1.
//
// -berth PATH -agent-state FILE adds berth_instance (internal/bench's
// berth-wait configuration) against a Nomad agent started by bin/devagent.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/bench"
	"github.com/berthhq/terraform-provider-berth/internal/bench/schemacurve"
)

// families maps a shape name to the shape with about `leaves` leaves.
var families = map[string]func(leaves int) schemacurve.Shape{
	"flat":       func(l int) schemacurve.Shape { return schemacurve.Shape{Attrs: l} },
	"flat-quiet": func(l int) schemacurve.Shape { return schemacurve.Shape{Attrs: l, Quiet: true} },
	"flat-comp":  func(l int) schemacurve.Shape { return schemacurve.Shape{Attrs: l, Computed: true} },
	"prims":      func(l int) schemacurve.Shape { return schemacurve.Shape{Lists: l / 2, Maps: l - l/2} },
	"single":     func(l int) schemacurve.Shape { return schemacurve.Shape{Single: l / 10, K: 10} },
	"single-w1":  func(l int) schemacurve.Shape { return schemacurve.Shape{Single: l / 10, K: 10, Wrap: 1} },
	"single-w3":  func(l int) schemacurve.Shape { return schemacurve.Shape{Single: l / 10, K: 10, Wrap: 3} },
	"single-k2":  func(l int) schemacurve.Shape { return schemacurve.Shape{Single: l / 2, K: 2} },
	"single-quiet": func(l int) schemacurve.Shape {
		return schemacurve.Shape{Single: l / 10, K: 10, Quiet: true}
	},
	"single-comp": func(l int) schemacurve.Shape {
		return schemacurve.Shape{Single: l / 10, K: 10, Computed: true}
	},
	"list":   func(l int) schemacurve.Shape { return schemacurve.Shape{List: l / 10, K: 10} },
	"set":    func(l int) schemacurve.Shape { return schemacurve.Shape{Set: l / 10, K: 10} },
	"map":    func(l int) schemacurve.Shape { return schemacurve.Shape{Map: l / 10, K: 10} },
	"block":  func(l int) schemacurve.Shape { return schemacurve.Shape{Blocks: l / 10, K: 10} },
	"sblock": func(l int) schemacurve.Shape { return schemacurve.Shape{SBlocks: l / 10, K: 10} },
}

// Result is one case.
type Result struct {
	Case    string        `json:"case"`
	Shape   string        `json:"shape,omitempty"`
	Leaves  int           `json:"leaves"`
	Fill    float64       `json:"fill"`
	Packed  bool          `json:"packed,omitempty"` // the set leaves come first (later containers null)
	N       int           `json:"n"`
	CoreN   time.Duration `json:"core_n_ns"`
	Core1   time.Duration `json:"core_1_ns"`
	PlugN   time.Duration `json:"plugin_n_ns"`
	Plug1   time.Duration `json:"plugin_1_ns"`
	Changed bool          `json:"changed,omitempty"` // a plan was not empty
}

// FillLabel is the fill as -fills spells it.
func (r Result) FillLabel() string {
	if r.Packed {
		return fmt.Sprintf("p%g", r.Fill)
	}
	return fmt.Sprintf("%g", r.Fill)
}

// PerResource is core CPU per resource.
func (r Result) PerResource() time.Duration { return (r.CoreN - r.Core1) / time.Duration(r.N-1) }

// PluginPerResource is plugin CPU per resource.
func (r Result) PluginPerResource() time.Duration { return (r.PlugN - r.Plug1) / time.Duration(r.N-1) }

type options struct {
	n, runs, profileRuns int
	work, profile        string
}

func main() {
	if os.Getenv(schemacurve.EnvServe) != "" {
		if err := schemacurve.Serve(); err != nil {
			fmt.Fprintln(os.Stderr, "curve provider:", err)
			os.Exit(1)
		}
		return
	}
	if schemacurve.IsShim(os.Args[0]) {
		os.Exit(schemacurve.RunShim(os.Args[0], os.Args[1:]))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "schemacurve:", err)
		os.Exit(1)
	}
}

func run() error {
	var o options
	tf := flag.String("terraform", "terraform", "terraform CLI")
	flag.IntVar(&o.n, "n", 100, "resources per configuration")
	flag.IntVar(&o.runs, "runs", 3, "plans per configuration; figures are their median")
	flag.StringVar(&o.work, "work", "", "scratch directory (required)")
	flag.StringVar(&o.profile, "profile", "", "directory for TF_CPUPROFILE files of -profile-runs extra plans per case")
	flag.IntVar(&o.profileRuns, "profile-runs", 5, "profiled plans per case")
	shapes := flag.String("shapes", "", "comma-separated shape families: "+strings.Join(slices.Sorted(maps.Keys(families)), ","))
	sizes := flag.String("sizes", "10,20,50,100,200,400", "leaf counts")
	fills := flag.String("fills", "0.1,0.5,1", "fractions of leaves set, spread evenly; p0.1: the first 10% (later containers null)")
	quiet := flag.Bool("quiet", false, "every shape with quiet=1: the provider turns the SDK's trace logs off, as berth does")
	floor := flag.Bool("floor", false, "measure terraform_data too")
	berth := flag.String("berth", "", "terraform-provider-berth binary: measure berth_instance too")
	agentState := flag.String("agent-state", "", "devagent state file of the Nomad agent (for -berth)")
	out := flag.String("out", "", "append results as JSON lines to this file")
	report := flag.String("report", "", "print the tables of this JSON lines file and exit")
	classify := flag.String("classify", "", "print core CPU per resource by group from the -profile files DIR/<case> (with -terraform the profiled binary) and exit")
	flag.Parse()
	if *classify != "" {
		return printClassified(*tf, *classify)
	}
	if *report != "" {
		rs, err := readResults(*report)
		if err != nil {
			return err
		}
		printTables(os.Stdout, rs)
		return nil
	}
	if o.work == "" || o.n < 2 || o.runs < 1 {
		return errors.New("need -work, -n >= 2, -runs >= 1")
	}
	providers := map[string]string{"berthhq/curve": mustSelf()}
	if *berth != "" {
		providers["berthhq/berth"] = *berth
	}
	env, err := schemacurve.NewEnv(*tf, o.work, providers)
	if err != nil {
		return err
	}
	var outF *os.File
	if *out != "" {
		if outF, err = os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			return err
		}
		defer outF.Close()
	}
	var results []Result
	record := func(r Result) {
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "%-12s %-28s leaves %3d fill %-5s: core %7.1f ms @%d, %6.1f ms @1 -> %6.0f µs/resource; plugin %5.0f µs/resource%s\n",
			r.Case, r.Shape, r.Leaves, r.FillLabel(), ms(r.CoreN), r.N, ms(r.Core1), us(r.PerResource()), us(r.PluginPerResource()),
			map[bool]string{true: "  PLAN NOT EMPTY"}[r.Changed])
		if outF != nil {
			line, _ := json.Marshal(r)
			fmt.Fprintf(outF, "%s\n", line)
		}
	}
	if *floor {
		r, err := measure(env, o, "floor", nil, false, func(n int) string { return floorConfig(n) })
		if err != nil {
			return err
		}
		record(r)
	}
	if *berth != "" {
		addr, err := agentAddr(*agentState)
		if err != nil {
			return err
		}
		var v bench.Variant
		for _, x := range bench.Variants() {
			if x.Key == bench.KeyBerthWait {
				v = x
			}
		}
		r, err := measure(env, o, "berth", nil, true, func(n int) string { return v.Config(n, addr) })
		if err != nil {
			return err
		}
		record(r)
	}
	for _, fam := range splitList(*shapes) {
		mk, ok := families[fam]
		if !ok {
			return fmt.Errorf("unknown shape family %q", fam)
		}
		for _, size := range splitList(*sizes) {
			leaves, err := strconv.Atoi(size)
			if err != nil {
				return err
			}
			shape := mk(leaves)
			shape.Quiet = shape.Quiet || *quiet
			for _, f := range splitList(*fills) {
				packed := strings.HasPrefix(f, "p")
				fill, err := strconv.ParseFloat(strings.TrimPrefix(f, "p"), 64)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("%s-%d-%s-q%t", fam, leaves, f, shape.Quiet)
				extra := []string{schemacurve.EnvShape + "=" + shape.String()}
				r, err := measure(env, o, name, extra, false, func(n int) string { return shape.Config(n, fill, packed) })
				if err != nil {
					return err
				}
				r.Case, r.Shape, r.Leaves, r.Fill, r.Packed = fam, shape.String(), shape.Leaves(), fill, packed
				if *quiet {
					r.Case += " (quiet)"
				}
				record(r)
			}
		}
	}
	printTables(os.Stdout, results)
	return nil
}

// measure applies config(n) and config(1) in turn, plans each o.runs times
// and, when destroy, destroys it afterwards.
func measure(env *schemacurve.Env, o options, name string, extra []string, destroy bool, config func(n int) string) (Result, error) {
	r := Result{Case: name, N: o.n, Fill: 1}
	for _, n := range []int{o.n, 1} {
		dir := filepath.Join(o.work, name, strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return r, err
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config(n)), 0o644); err != nil {
			return r, err
		}
		if _, err := env.Run(dir, extra, nil, "apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
			return r, err
		}
		plan := []string{"plan", "-refresh=true", "-input=false", "-no-color", "-detailed-exitcode"}
		var core, plug []time.Duration
		for range o.runs {
			s, err := env.Run(dir, extra, []int{2}, plan...)
			if err != nil {
				return r, err
			}
			core, plug = append(core, s.Core), append(plug, s.Plugin)
			r.Changed = r.Changed || s.Exit == 2
		}
		if o.profile != "" {
			for i := range o.profileRuns {
				file, err := filepath.Abs(filepath.Join(o.profile, fmt.Sprintf("%s-n%d-%d.pprof", name, n, i)))
				if err != nil {
					return r, err
				}
				if _, err := env.Run(dir, append(slices.Clone(extra), "TF_CPUPROFILE="+file), []int{2}, plan...); err != nil {
					return r, err
				}
			}
		}
		if destroy {
			if _, err := env.Run(dir, extra, nil, "destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
				return r, err
			}
		}
		if n == o.n {
			r.CoreN, r.PlugN = schemacurve.Median(core), schemacurve.Median(plug)
		} else {
			r.Core1, r.Plug1 = schemacurve.Median(core), schemacurve.Median(plug)
		}
	}
	return r, nil
}

func floorConfig(n int) string {
	return fmt.Sprintf("resource \"terraform_data\" \"x\" {\n  count = %d\n  input = \"v${count.index}\"\n}\n", n)
}

func agentAddr(state string) (string, error) {
	data, err := os.ReadFile(state)
	if err != nil {
		return "", fmt.Errorf("-agent-state: %w", err)
	}
	var st struct {
		Addr string `json:"addr"`
	}
	if err := json.Unmarshal(data, &st); err != nil || st.Addr == "" {
		return "", fmt.Errorf("%s: no addr", state)
	}
	return st.Addr, nil
}

func readResults(file string) ([]Result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}

// printTables prints the single cases, then one table per shape family:
// µs of core CPU per resource by leaf count (rows) and fill (columns).
func printTables(w *os.File, rs []Result) {
	fmt.Fprintln(w, "| case | core ms @n | core ms @1 | core µs/resource | plugin µs/resource |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		if r.Shape == "" {
			fmt.Fprintf(w, "| %s (n=%d) | %.0f | %.0f | %.0f | %.0f |\n", r.Case, r.N, ms(r.CoreN), ms(r.Core1), us(r.PerResource()), us(r.PluginPerResource()))
		}
	}
	var fams []string
	fills := map[string][]string{}
	cells := map[string]map[int]map[string]Result{}
	for _, r := range rs {
		if r.Shape == "" {
			continue
		}
		if cells[r.Case] == nil {
			fams = append(fams, r.Case)
			cells[r.Case] = map[int]map[string]Result{}
		}
		if cells[r.Case][r.Leaves] == nil {
			cells[r.Case][r.Leaves] = map[string]Result{}
		}
		if !slices.Contains(fills[r.Case], r.FillLabel()) {
			fills[r.Case] = append(fills[r.Case], r.FillLabel())
		}
		cells[r.Case][r.Leaves][r.FillLabel()] = r
	}
	for _, fam := range fams {
		fs := fills[fam]
		slices.Sort(fs)
		fmt.Fprintf(w, "\n%s: core µs per resource (plugin µs per resource)\n\n| leaves | shape |", fam)
		for _, f := range fs {
			fmt.Fprintf(w, " fill %s |", f)
		}
		fmt.Fprintf(w, "\n| ---: | --- |%s\n", strings.Repeat(" ---: |", len(fs)))
		for _, l := range slices.Sorted(maps.Keys(cells[fam])) {
			row := cells[fam][l]
			var shape string
			for _, r := range row {
				shape = r.Shape
			}
			fmt.Fprintf(w, "| %d | %s |", l, shape)
			for _, f := range fs {
				if r, ok := row[f]; ok {
					mark := ""
					if r.Changed {
						mark = "*"
					}
					fmt.Fprintf(w, " %.0f (%.0f)%s |", us(r.PerResource()), us(r.PluginPerResource()), mark)
				} else {
					fmt.Fprint(w, " |")
				}
			}
			fmt.Fprintln(w)
		}
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func mustSelf() string {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return self
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
func us(d time.Duration) float64 { return float64(d) / 1e3 }

// printClassified prints, per group, the core CPU per resource of the
// profiles prefix-n<N>-<i>.pprof and prefix-n1-<i>.pprof.
func printClassified(bin, prefix string) error {
	files, err := filepath.Glob(prefix + "-n*-*.pprof")
	if err != nil {
		return err
	}
	byN := map[int][]string{}
	for _, f := range files {
		rest := strings.TrimPrefix(f, prefix+"-n")
		n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '-')])
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		byN[n] = append(byN[n], f)
	}
	ns := slices.Sorted(maps.Keys(byN))
	if len(ns) != 2 || ns[0] != 1 {
		return fmt.Errorf("want profiles at n=1 and one other n under %s, have n=%v", prefix, ns)
	}
	perPlan := map[int]map[string]time.Duration{}
	totals := map[int]time.Duration{}
	for _, n := range ns {
		out, err := exec.Command("go", append([]string{"tool", "pprof", "-traces", bin}, byN[n]...)...).Output()
		if err != nil {
			return fmt.Errorf("go tool pprof: %w", err)
		}
		groups, total, err := schemacurve.Classify(string(out))
		if err != nil {
			return err
		}
		perPlan[n] = map[string]time.Duration{}
		for g, d := range groups {
			perPlan[n][g] = d / time.Duration(len(byN[n]))
		}
		totals[n] = total / time.Duration(len(byN[n]))
	}
	n := ns[1]
	per := func(a, b time.Duration) float64 { return us((a - b) / time.Duration(n-1)) }
	fmt.Printf("%s: %d plans profiled at n=%d, %d at n=1; mean samples per plan %.0f ms at n=%d, %.0f ms at 1\n\n",
		prefix, len(byN[n]), n, len(byN[1]), ms(totals[n]), n, ms(totals[1]))
	fmt.Printf("| group | ms per plan @%d | ms per plan @1 | core µs per resource | share |\n", n)
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	all := per(totals[n], totals[1])
	var names []string
	for _, gr := range schemacurve.Groups {
		names = append(names, gr.Name)
	}
	for _, g := range append(names, schemacurve.OtherGroup) {
		v := per(perPlan[n][g], perPlan[1][g])
		fmt.Printf("| %s | %.0f | %.0f | %.0f | %.0f%% |\n", g, ms(perPlan[n][g]), ms(perPlan[1][g]), v, 100*v/all)
	}
	fmt.Printf("| total | %.0f | %.0f | %.0f | |\n", ms(totals[n]), ms(totals[1]), all)
	return nil
}
