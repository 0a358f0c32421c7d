package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// The growth jobspec is the placing one plus one group constraint no node
// meets, as Nomad's parser reads it: Terraform's "$${" escape becomes the
// node attribute reference "${meta.berth_bench_never}".
func TestGrowthJobspecHasTheNeverConstraint(t *testing.T) {
	parse := func(spec string) *api.Job {
		t.Helper()
		// As Terraform renders the heredoc for count.index = 0 (and the
		// change variable unset).
		spec = strings.ReplaceAll(spec, "${count.index}", "0")
		spec = strings.ReplaceAll(spec, "${"+memoryExpr+"}", strconv.Itoa(jobMemory))
		spec = strings.ReplaceAll(spec, "$${", "${")
		job, _, err := jobspec.Parse(jobspec.Spec{Source: spec}, clusterParser(t))
		if err != nil {
			t.Fatalf("%v\n%s", err, spec)
		}
		return job
	}
	placing, growth := parse(benchJobspec(KeyPeerDetach, false)), parse(benchJobspec(KeyPeerDetach, true))
	if n := len(placing.TaskGroups[0].Constraints) + len(placing.Constraints); n != 0 {
		t.Errorf("placing jobspec has %d constraints", n)
	}
	if len(growth.Constraints) != 0 {
		t.Errorf("growth jobspec has job-level constraints %v; berth_instance writes them on the group", growth.Constraints)
	}
	want := []*api.Constraint{{LTarget: "${meta.berth_bench_never}", Operand: "is_set"}}
	got := growth.TaskGroups[0].Constraints
	if len(got) != 1 || *got[0] != *want[0] {
		t.Errorf("group constraints = %v, want %v", got, want)
	}
	growth.TaskGroups[0].Constraints = placing.TaskGroups[0].Constraints
	if !reflect.DeepEqual(placing, growth) {
		t.Error("the growth job differs from the placing job beyond its constraint")
	}
}

// berth_instance says the same through its typed schema, on the group
// (placement.constraints), and the jobspec variants through the jobspec;
// nothing else changes in growth mode, and every variant of the placing
// bench keeps its configuration.
func TestGrowthConfigs(t *testing.T) {
	const addr = "http://127.0.0.1:4646"
	berthPlacement := `
  placement = {
    constraints = [{
      attribute = "$${meta.berth_bench_never}"
      operator  = "is_set"
    }]
  }`
	jobConstraint := `

    constraint {
      attribute = "$${meta.berth_bench_never}"
      operator  = "is_set"
    }`
	for _, v := range Variants() {
		placing, growth := v.Config(5, addr), v.GrowthConfig(5, addr)
		var added string
		switch {
		case v.Provider == nil:
			added = ""
		case strings.Contains(placing, `resource "berth_instance"`):
			added = berthPlacement
		default:
			added = jobConstraint
		}
		if strings.Contains(placing, "berth_bench_never") {
			t.Errorf("%s: the placing configuration has the never constraint", v.Key)
		}
		if added != "" && strings.Count(growth, added) != 1 {
			t.Errorf("%s: growth configuration lacks the constraint %q:\n%s", v.Key, added, growth)
		}
		if strings.Replace(growth, added, "", 1) != placing {
			t.Errorf("%s: growth configuration differs from the placing one beyond the constraint:\n%s", v.Key, growth)
		}
	}
}

func TestGrowthKeys(t *testing.T) {
	want := []string{KeyFloor, KeyBerthNoWait, KeyJobNoWait, KeyPeerDetach}
	if got := GrowthKeys(); !slices.Equal(got, want) {
		t.Errorf("GrowthKeys = %v, want %v", got, want)
	}
	waiting := []string{KeyBerthWait, KeyBaseWait, KeyJobWait, KeyPeerWait}
	for _, v := range Variants() {
		if v.GrowthVariant() == slices.Contains(waiting, v.Key) {
			t.Errorf("%s (%s): GrowthVariant = %t", v.Key, v.Label, v.GrowthVariant())
		}
	}
}

func TestNewRunnerGrowthRefusesWaitingVariants(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "terraform-provider-berth")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := NewRunner(Options{N: 1, Runs: 1, Parallelism: 1, Work: t.TempDir(), NomadAddr: "http://127.0.0.1:1",
		Berth: bin, Only: []string{KeyBerthWait}, Growth: true})
	if err == nil || !strings.Contains(err.Error(), "berth-wait waits for allocations") {
		t.Errorf("NewRunner = %v, want the waiting variant refused", err)
	}
	r, err := NewRunner(Options{N: 1, Runs: 1, Parallelism: 1, Work: t.TempDir(), NomadAddr: "http://127.0.0.1:1",
		Berth: bin, Growth: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var keys []string
	for _, v := range r.Variants() {
		keys = append(keys, v.Key)
		cfg, err := os.ReadFile(filepath.Join(r.o.Work, v.Key, "main.tf"))
		if err != nil {
			t.Fatal(err)
		}
		if v.Provider != nil && !bytes.Contains(cfg, []byte("berth_bench_never")) {
			t.Errorf("%s: main.tf has no never constraint", v.Key)
		}
	}
	if want := []string{KeyFloor, KeyBerthNoWait, KeyJobNoWait}; !slices.Equal(keys, want) { // no peer given
		t.Errorf("growth variants = %v, want %v", keys, want)
	}
}

func TestCheckUnplaced(t *testing.T) {
	const prefix = "bench-berth-nowait-"
	jobs := []jobStub{{ID: prefix + "0", Status: "pending"}, {ID: prefix + "1", Status: "pending"}, {ID: "bench-job-nowait-0"}}
	evals := []evalStub{{JobID: prefix + "0", Status: "blocked"}, {JobID: prefix + "1", Status: "pending"}, {JobID: "other", Status: "pending"}}
	other := []allocStub{{ID: "a", JobID: "bench-job-nowait-0", ClientStatus: "running"}}
	if pending, err := checkUnplaced(prefix, 2, jobs, other, evals); err != nil || pending != 1 {
		t.Errorf("checkUnplaced = %d, %v; want 1 pending evaluation, no error", pending, err)
	}
	if _, err := checkUnplaced(prefix, 3, jobs, nil, evals); err == nil || !strings.Contains(err.Error(), "2 jobs bench-berth-nowait-* registered after apply, want 3") {
		t.Errorf("missing job: %v", err)
	}
	placed := append(other, allocStub{ID: "b", JobID: prefix + "1", ClientStatus: "pending"})
	if _, err := checkUnplaced(prefix, 2, jobs, placed, evals); err == nil || !strings.Contains(err.Error(), "placed despite constraint") {
		t.Errorf("placed job: %v", err)
	}
}

func TestParseNs(t *testing.T) {
	got, err := ParseNs("100 300,1000")
	if err != nil || !slices.Equal(got, []int{100, 300, 1000}) {
		t.Errorf("ParseNs = %v, %v", got, err)
	}
	for _, bad := range []string{"", " , ", "100 x", "0", "-5", "10 10"} {
		if _, err := ParseNs(bad); err == nil {
			t.Errorf("ParseNs(%q) accepted", bad)
		}
	}
}

func TestGrowthRatio(t *testing.T) {
	// 1 s for 100, 3 s for 300: linear; 12 s for 300: 4x per resource.
	if g, ok := growthRatio(3, 300, 1, 100); !ok || g != 1 {
		t.Errorf("linear: %v %v", g, ok)
	}
	if g, ok := growthRatio(12, 300, 1, 100); !ok || g != 4 {
		t.Errorf("super-linear: %v %v", g, ok)
	}
	if _, ok := growthRatio(1, 300, 0, 100); ok {
		t.Error("a ratio against no cost")
	}
	if c := growthCell(12, 300, 1, 100); c != "**4.00**" {
		t.Errorf("growthCell = %q, want bold", c)
	}
}

func TestGrowthPrint(t *testing.T) {
	sample := func(wall float64, req int, peak int64) Sample {
		sec := time.Duration(wall * float64(time.Second))
		return Sample{Wall: sec, Requests: req, TerraformCPU: sec / 2, PluginCPU: sec / 4, AgentCPU: sec / 8, PluginPeak: peak}
	}
	rep := func(n int, berth, peer float64) Report {
		r := Report{N: n, Runs: 1, Growth: true}
		for key, wall := range map[string]float64{KeyBerthNoWait: berth, KeyPeerDetach: peer} {
			m := map[Phase]Sample{}
			for _, ph := range Phases {
				m[ph] = sample(wall, 2*n, 40<<20)
			}
			v := Variants()[slices.IndexFunc(Variants(), func(v Variant) bool { return v.Key == key })]
			r.Rows = append(r.Rows, Row{Key: key, Label: v.Label, Peer: v.Peer, Median: m})
		}
		return r
	}
	var buf bytes.Buffer
	// Given out of order: the table starts at the smallest N.
	Growth{Reports: []Report{rep(300, 9, 6), rep(100, 1, 2)}}.Print(&buf)
	out := buf.String()
	for _, want := range []string{
		"Growth at N = 100, 300 (jobs never placed)",
		"| berth_instance, wait_for_healthy = false | 100 | 1.00 | 1.00 | 0.50 | 200 | 2.00 | 0.50 / 0.25 / 0.12 | 1.00 / 1.00 / 1.00 | 40 |",
		"| berth_instance, wait_for_healthy = false | 300 | 9.00 | **3.00** | 1.50 | 600 | 2.00 | 4.50 / 2.25 / 1.12 | **3.00** / **3.00** / **3.00** | 40 |",
		"| nomad_job, detach = true | 300 | 6.00 | 1.00 | – | 600 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("growth table lacks %q:\n%s", want, out)
		}
	}
}

// clusterParser is the test agent's jobspec parser: berth reads HCL2 with
// the cluster's own (make testacc starts an agent and sets NOMAD_ADDR).
func clusterParser(t *testing.T) jobspec.Parser {
	t.Helper()
	if os.Getenv("NOMAD_ADDR") == "" {
		t.Skip("needs a Nomad agent: berth parses HCL2 with the cluster's own parser")
	}
	c, err := nomadclient.New(nomadclient.Config{Address: os.Getenv("NOMAD_ADDR"), Token: os.Getenv("NOMAD_TOKEN")})
	if err != nil {
		t.Fatal(err)
	}
	return c.Parser(t.Context(), "")
}
