package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 1, 3, 2}, 2}, // (2+3)/2 in integer nanoseconds
		{[]time.Duration{10, 30, 20, 40}, 25},
	} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMedianSample(t *testing.T) {
	ss := []Sample{
		{Wall: 3 * time.Second, Requests: 401, Endpoints: map[string]int{"a": 401}, PluginCPU: 3},
		{Wall: 1 * time.Second, Requests: 400, Endpoints: map[string]int{"b": 400}, PluginCPU: 1, PlanChanged: true},
		{Wall: 2 * time.Second, Requests: 402, Endpoints: map[string]int{"c": 402}, PluginCPU: 2},
	}
	m := MedianSample(ss)
	if m.Wall != 2*time.Second || m.Requests != 401 || m.PluginCPU != 2 {
		t.Errorf("median = %+v", m)
	}
	if m.Endpoints["a"] != 401 {
		t.Errorf("endpoints = %v, want those of the run with 401 requests", m.Endpoints)
	}
	if !m.PlanChanged {
		t.Error("PlanChanged not carried over from one run")
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/job/bench-berth-wait-17":                                "/v1/job/:name",
		"/v1/job/bench-peer-wait-3/allocations":                      "/v1/job/:name/allocations",
		"/v1/deployment/5f3c2a1e-0d4b-4c3a-9e2f-1a2b3c4d5e6f":        "/v1/deployment/:id",
		"/v1/evaluation/5f3c2a1e-0d4b-4c3a-9e2f-1a2b3c4d5e6f/allocs": "/v1/evaluation/:id/allocs",
		"/v1/jobs": "/v1/jobs",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProxyCounts(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	defer backend.Close()
	p, err := StartProxy(backend.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get := func(path string) {
		t.Helper()
		resp, err := http.Get(p.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != path {
			t.Fatalf("proxied %s answered %q", path, body)
		}
	}
	get("/v1/job/bench-x-1")
	get("/v1/job/bench-x-2")
	get("/v1/job/bench-x-2/allocations")
	got, _ := p.Reset()
	if got["GET /v1/job/:name"] != 2 || got["GET /v1/job/:name/allocations"] != 1 || Total(got) != 3 {
		t.Errorf("counts = %v", got)
	}
	if by := ByEndpoint(got); by[0].Endpoint != "GET /v1/job/:name" {
		t.Errorf("ByEndpoint = %v", by)
	}
	get("/v1/jobs")
	if got, chain := p.Reset(); Total(got) != 1 || chain != 1 {
		t.Errorf("after Reset counts = %v, chain %d", got, chain)
	}
}

func TestLongestChain(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	sp := func(from, to int) span { return span{at(from), at(to)} }
	for name, c := range map[string]struct {
		spans []span
		want  int
	}{
		"none":                 {nil, 0},
		"ten at once":          {[]span{sp(0, 10), sp(0, 10), sp(1, 11), sp(2, 12), sp(2, 9), sp(3, 10), sp(0, 5), sp(4, 9), sp(1, 8), sp(0, 10)}, 1},
		"three in a row":       {[]span{sp(20, 30), sp(0, 10), sp(10, 20)}, 3},
		"overlap breaks a row": {[]span{sp(0, 10), sp(9, 19), sp(18, 28)}, 2},
		"two rows, longest":    {[]span{sp(0, 5), sp(5, 10), sp(10, 15), sp(0, 14), sp(14, 20)}, 3},
		"a long one beside":    {[]span{sp(0, 100), sp(0, 1), sp(1, 2), sp(2, 3), sp(3, 4)}, 4},
	} {
		if got := LongestChain(c.spans); got != c.want {
			t.Errorf("%s: %d, want %d", name, got, c.want)
		}
	}
}

func row(key string, apply, plan, destroy float64, requests int) Row {
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return Row{Key: key, Median: map[Phase]Sample{
		Apply: {Wall: sec(apply)}, Plan: {Wall: sec(plan), Requests: requests}, Destroy: {Wall: sec(destroy), Requests: requests + 10},
	}}
}

func statuses(ts []Target) map[string]string {
	out := map[string]string{}
	for _, t := range ts {
		out[t.Name] = t.Status
	}
	return out
}

func TestTargets(t *testing.T) {
	rep := Report{N: 10, Rows: []Row{
		row(KeyBerthNoWait, 5, 4, 1, 20),
		row(KeyBerthWait, 20, 5, 1, 21),
		row(KeyPeerDetach, 10, 10, 0.9, 20),
		row(KeyPeerWait, 30, 10, 1, 20),
		row(KeyJobNoWait, 9, 11, 1, 20),
	}}
	got := statuses(rep.Targets(true, nil))
	want := map[string]string{
		"job-nowait apply <= 0.50x peer-detach apply":       "FAIL", // 0.9
		"job-nowait plan <= 0.50x peer-detach plan":         "FAIL", // 1.1
		"job-nowait destroy <= 0.50x peer-detach destroy":   "FAIL", // 1.11
		"job-wait apply <= 1.00x peer-wait apply":           "skipped (job-wait not run)",
		"job-wait plan <= 1.00x peer-wait plan":             "skipped (job-wait not run)",
		"job-wait destroy <= 1.00x peer-wait destroy":       "skipped (job-wait not run)",
		"berth-nowait apply <= 0.50x peer-detach apply":     "PASS", // 0.5
		"berth-nowait plan <= 0.50x peer-detach plan":       "PASS", // 0.4
		"berth-nowait destroy <= 0.50x peer-detach destroy": "FAIL", // 1.11
		"berth-wait apply <= 0.50x peer-wait apply":         "FAIL", // 0.67
		"berth-nowait plan requests <= 2 per instance":      "PASS",
		"berth-wait plan requests <= 2 per instance":        "FAIL", // 2.1
		"berth-nowait destroy requests <= 3 per instance":   "PASS", // 3.0
		"berth-wait destroy requests <= 3 per instance":     "FAIL", // 3.1
	}
	for name, st := range want {
		if got[name] != st {
			t.Errorf("%s: %q, want %q", name, got[name], st)
		}
	}
	if len(got) != len(want) {
		t.Errorf("targets = %v", got)
	}

	noPeer := statuses(rep.Targets(false, nil))
	if st := noPeer["berth-nowait apply <= 0.50x peer-detach apply"]; st != "skipped (no PEER_PROVIDER)" {
		t.Errorf("without a peer: %q", st)
	}
	var buf bytes.Buffer
	if !rep.Print(&buf, rep.Targets(true, nil)) {
		t.Error("Print did not report the failed targets")
	}
	if rep.Print(&buf, rep.Targets(false, nil)[:2]) {
		t.Error("Print reported skipped targets as failed")
	}
}

// The same berth figures (10.9, 11.5, 9 s, 20 requests against 10, 10,
// 10 s, 20) judged against a BASELINE report and against base rows of the
// same run.
func TestTargetsRegressions(t *testing.T) {
	now := row(KeyBerthNoWait, 10.9, 11.5, 9, 20)
	base := Report{N: 10, Rows: []Row{row(KeyBerthNoWait, 10, 10, 10, 20)}}
	baseRow := row(KeyBaseNoWait, 10, 10, 10, 20)
	baseRow.Base = KeyBerthNoWait
	for what, got := range map[string]map[string]string{
		"baseline": statuses(Report{N: 10, Rows: []Row{now}}.Targets(false, &base)),
		"base":     statuses(Report{N: 10, Rows: []Row{now, baseRow}}.Targets(false, nil)),
	} {
		for fig, st := range map[string]string{"apply": "PASS", "plan": "FAIL", "destroy": "PASS", "plan requests": "PASS"} {
			name := fmt.Sprintf("berth-nowait %s <= 1.10x %s", fig, what)
			if got[name] != st {
				t.Errorf("%s: %q, want %q", name, got[name], st)
			}
		}
		if _, ok := got["berth-wait apply <= 1.10x "+what]; ok {
			t.Errorf("%s: a berth row with nothing to compare with was compared", what)
		}
	}
	base.N = 20
	if st := statuses(Report{N: 10, Rows: []Row{now}}.Targets(false, &base))["berth-nowait against baseline"]; !strings.HasPrefix(st, "skipped") {
		t.Errorf("baseline with another N: %q", st)
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	rep := NewReport(Variants(), map[string]map[Phase][]Sample{
		KeyBerthNoWait: {Plan: {{Wall: time.Second, Requests: 4}, {Wall: 3 * time.Second, Requests: 4}, {Wall: 2 * time.Second, Requests: 4}}},
	})
	rep.N = 2
	file := filepath.Join(t.TempDir(), "r.json")
	if err := rep.WriteJSON(file); err != nil {
		t.Fatal(err)
	}
	back, err := LoadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := back.row(KeyBerthNoWait)
	if !ok || r.Median[Plan].Wall != 2*time.Second || len(r.Samples[Plan]) != 3 {
		t.Errorf("round trip: %+v", back)
	}
}

func TestInstallReal(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("binary"))
	_ = zw.Close()
	zipped := filepath.Join(dir, "zipped.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{plain: "#!/bin/sh\n", zipped: "binary"} {
		dst := filepath.Join(dir, "out-"+filepath.Base(src))
		if err := installReal(src, dst); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(dst)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v", src, got, err)
		}
		if st, err := os.Stat(dst); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: not executable (%v)", dst, err)
		}
	}
}

func TestPluginUsage(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "terraform-provider-berth-1"), []byte("1000000000 500000000 52428800\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "terraform-provider-berth-2"), []byte("2000000000 0 104857600\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "terraform-provider-berth-3"), []byte("0 0 73400320\n"), 0o644)
	u, s, peak, err := pluginUsage(dir)
	if err != nil || u != 3*time.Second || s != 500*time.Millisecond || peak != 100<<20 {
		t.Errorf("pluginUsage = %v, %v, %d, %v; want 3s, 500ms, the largest peak %d", u, s, peak, err, 100<<20)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// The generated configurations are what terraform fmt writes (so they
// parse); skipped without the terraform CLI. (The CLI configuration is
// HCL 1, which terraform fmt does not read.)
func TestConfigsFormatted(t *testing.T) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not on PATH")
	}
	cfgs := map[string]string{}
	for _, v := range Variants() {
		cfgs[v.Key] = v.Config(3, "http://127.0.0.1:4646")
		cfgs[v.Key+" (growth)"] = v.GrowthConfig(3, "http://127.0.0.1:4646")
	}
	for name, cfg := range cfgs {
		cmd := exec.Command(tf, "fmt", "-")
		cmd.Stdin = strings.NewReader(cfg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: terraform fmt: %v\n%s", name, err, cfg)
		}
		if string(out) != cfg {
			t.Errorf("%s is not formatted:\n%s\nterraform fmt writes:\n%s", name, cfg, out)
		}
	}
}

func TestRemoteTargets(t *testing.T) {
	rep := Report{N: 1000, Rows: []Row{
		row(KeyFloor, 1, 2.0, 1, 0),
		row(KeyBerthNoWait, 1, 2.5, 1, 3),
		row(KeyJobNoWait, 1, 2.7, 1, 6),
		row(KeyPeerDetach, 1, 20, 1, 2000),
	}}
	got := map[string]string{}
	for _, tg := range rep.RemoteTargets(true) {
		got[tg.Name] = tg.Status
	}
	want := map[string]string{
		"berth-nowait plan <= 1.30x floor plan":           "PASS",
		"berth-nowait plan <= 0.25x peer-detach plan":     "PASS",
		"berth-nowait plan requests <= 5 (one namespace)": "PASS",
		"job-nowait plan <= 1.30x floor plan":             "FAIL",
		"job-nowait plan <= 0.25x peer-detach plan":       "PASS",
		"job-nowait plan requests <= 5 (one namespace)":   "FAIL",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets = %v, want %v", got, want)
	}
}
