package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// Row is one variant's results.
type Row struct {
	Key     string             `json:"key"`
	Label   string             `json:"label"`
	Peer    string             `json:"peer,omitempty"`
	Base    string             `json:"base,omitempty"` // a base row: the berth row it is compared with
	Median  map[Phase]Sample   `json:"median"`
	Samples map[Phase][]Sample `json:"samples"`
}

// Report is a whole bench run; it is also the JSON written for BASELINE.
type Report struct {
	N           int           `json:"n"`
	Runs        int           `json:"runs"`
	Parallelism int           `json:"parallelism"`
	Terraform   string        `json:"terraform"`
	Nomad       string        `json:"nomad"`
	CPUs        int           `json:"cpus"`
	Growth      bool          `json:"growth,omitempty"` // jobs never placed (growth mode)
	RTT         time.Duration `json:"rtt_ns,omitempty"` // added to every request (a cluster across a network)
	Rows        []Row         `json:"rows"`
}

// NewReport builds the rows of variants from their samples.
func NewReport(variants []Variant, samples map[string]map[Phase][]Sample) Report {
	var rep Report
	for _, v := range variants {
		s, ok := samples[v.Key]
		if !ok {
			continue
		}
		row := Row{Key: v.Key, Label: v.Label, Peer: v.Peer, Base: v.Base, Samples: s, Median: map[Phase]Sample{}}
		for ph, ss := range s {
			row.Median[ph] = MedianSample(ss)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep
}

// MedianSample is the median of each figure of ss taken separately; its
// endpoint breakdown is that of a run with the median request count, and
// PlanChanged is set when any run's plan was not empty.
func MedianSample(ss []Sample) Sample {
	if len(ss) == 0 {
		return Sample{}
	}
	pick := func(f func(Sample) time.Duration) time.Duration {
		v := make([]time.Duration, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		return Median(v)
	}
	m := Sample{
		Wall:         pick(func(s Sample) time.Duration { return s.Wall }),
		Requests:     int(pick(func(s Sample) time.Duration { return time.Duration(s.Requests) })),
		TerraformCPU: pick(func(s Sample) time.Duration { return s.TerraformCPU }),
		PluginCPU:    pick(func(s Sample) time.Duration { return s.PluginCPU }),
		AgentCPU:     pick(func(s Sample) time.Duration { return s.AgentCPU }),
		PluginPeak:   int64(pick(func(s Sample) time.Duration { return time.Duration(s.PluginPeak) })),
		Chain:        int(pick(func(s Sample) time.Duration { return time.Duration(s.Chain) })),
	}
	for _, s := range ss {
		m.PlanChanged = m.PlanChanged || s.PlanChanged
		if m.Endpoints == nil && s.Requests == m.Requests {
			m.Endpoints = s.Endpoints
		}
	}
	return m
}

// Median of v (the mean of the middle two for an even count).
func Median[T ~int64](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func (rep Report) row(key string) (Row, bool) {
	for _, r := range rep.Rows {
		if r.Key == key {
			return r, true
		}
	}
	return Row{}, false
}

func (r Row) secs(ph Phase) float64 { return r.Median[ph].Wall.Seconds() }

// Target is one acceptance target and how this run fared.
type Target struct {
	Name   string `json:"name"`
	Status string `json:"status"` // PASS, FAIL, or "skipped (why)"
	Detail string `json:"detail,omitempty"`
}

// Failed reports whether the target failed.
func (t Target) Failed() bool { return t.Status == "FAIL" }

// MaxPeerRatio is the most apply, plan and destroy of berth_instance and
// berth_job without waiting may be of the peer's (issue 37), and
// MaxWaitPeerRatio berth_instance's apply waiting (issue 13).
const (
	MaxPeerRatio     = 0.5
	MaxWaitPeerRatio = 0.5
)

// MaxDestroyRequestsPerInstance is the most requests berth_instance's
// destroy may make per instance, its refresh included (issue 26).
const MaxDestroyRequestsPerInstance = 3

// MaxPlanRequestsPerInstance is the most requests a plan may make per
// berth_instance.
const MaxPlanRequestsPerInstance = 2

// MaxJobWaitPeerRatio bounds berth_job waiting against nomad_job waiting
// on the same jobspec (issue 23).
const MaxJobWaitPeerRatio = 1.0

// MaxRegression is how much worse than BASELINE a berth figure may be.
const MaxRegression = 1.10

// Targets evaluates the targets of issues 13, 23 and 26 (and, with a
// baseline, the regression gate) on rep.
func (rep Report) Targets(peerGiven bool, baseline *Report) []Target {
	var out []Target
	ratio := func(berth, peer string, ph Phase, limit float64) {
		t := Target{Name: fmt.Sprintf("%s %s <= %.2fx %s %s", berth, ph, limit, peer, ph)}
		b, okB := rep.row(berth)
		p, okP := rep.row(peer)
		switch {
		case !okB:
			t.Status = "skipped (" + berth + " not run)"
		case !peerGiven:
			t.Status = "skipped (no PEER_PROVIDER)"
		case !okP:
			t.Status = "skipped (" + peer + " not run)"
		default:
			r := b.secs(ph) / p.secs(ph)
			t.Status = passFail(r <= limit)
			t.Detail = fmt.Sprintf("%.2fs vs %.2fs: %.2fx", b.secs(ph), p.secs(ph), r)
		}
		out = append(out, t)
	}
	// The targets of those issues are on the phases they named.
	judged := []Phase{Apply, Plan, Destroy}
	for _, ph := range judged {
		ratio(KeyBerthNoWait, KeyPeerDetach, ph, MaxPeerRatio)
	}
	ratio(KeyBerthWait, KeyPeerWait, Apply, MaxWaitPeerRatio)
	// berth_job runs the peer's own jobspec.
	for _, ph := range judged {
		ratio(KeyJobNoWait, KeyPeerDetach, ph, MaxPeerRatio)
		ratio(KeyJobWait, KeyPeerWait, ph, MaxJobWaitPeerRatio)
	}
	requests := func(key string, ph Phase, limit int) {
		t := Target{Name: fmt.Sprintf("%s %s requests <= %d per instance", key, ph, limit)}
		if b, ok := rep.row(key); !ok {
			t.Status = "skipped (" + key + " not run)"
		} else {
			per := float64(b.Median[ph].Requests) / float64(rep.N)
			t.Status = passFail(per <= float64(limit))
			t.Detail = fmt.Sprintf("%d requests for %d instances: %.2f each", b.Median[ph].Requests, rep.N, per)
		}
		out = append(out, t)
	}
	for _, key := range []string{KeyBerthNoWait, KeyBerthWait} {
		requests(key, Plan, MaxPlanRequestsPerInstance)
		requests(key, Destroy, MaxDestroyRequestsPerInstance)
	}
	if baseline != nil {
		out = append(out, rep.regressions(*baseline, "baseline")...)
	}
	return append(out, rep.regressions(rep.baseRows(), "base")...)
}

// baseRows is a report of this run's base rows under the keys of the berth
// rows they are compared with: the A/B gate, both binaries measured in the
// same cycles on the same machine.
func (rep Report) baseRows() Report {
	base := Report{N: rep.N}
	for _, r := range rep.Rows {
		if r.Base != "" {
			r.Key = r.Base
			base.Rows = append(base.Rows, r)
		}
	}
	return base
}

// regressions compares every berth figure with the one of the same key in
// base (what names it in the targets).
func (rep Report) regressions(base Report, what string) []Target {
	var out []Target
	for _, key := range []string{KeyBerthNoWait, KeyBerthWait} {
		b, ok1 := rep.row(key)
		old, ok2 := base.row(key)
		if !ok1 || !ok2 {
			continue
		}
		if base.N != rep.N {
			out = append(out, Target{Name: key + " against " + what, Status: fmt.Sprintf("skipped (%s has N = %d)", what, base.N)})
			continue
		}
		for _, ph := range Phases {
			if old.secs(ph) == 0 || b.secs(ph) == 0 {
				continue // a phase one of the runs did not have (an older report)
			}
			t := Target{Name: fmt.Sprintf("%s %s <= %.2fx %s", key, ph, MaxRegression, what)}
			r := b.secs(ph) / old.secs(ph)
			t.Status = passFail(r <= MaxRegression)
			t.Detail = fmt.Sprintf("%.2fs vs %.2fs: %.2fx", b.secs(ph), old.secs(ph), r)
			out = append(out, t)
		}
		t := Target{Name: fmt.Sprintf("%s plan requests <= %.2fx %s", key, MaxRegression, what)}
		now, was := b.Median[Plan].Requests, old.Median[Plan].Requests
		t.Status = passFail(float64(now) <= MaxRegression*float64(was))
		t.Detail = fmt.Sprintf("%d vs %d", now, was)
		out = append(out, t)
	}
	return out
}

// The targets of a plan against a cluster across a network (growth mode
// with an RTT, issue 44): the plan of an unchanged configuration of
// berth_instance and of berth_job costs at most MaxRemotePlanFloorRatio
// times terraform_data's and MaxRemotePlanPeerRatio times the other
// provider's, in at most MaxRemotePlanRequests requests (the bench's jobs
// are in one namespace) whatever N.
const (
	MaxRemotePlanFloorRatio = 1.3
	MaxRemotePlanPeerRatio  = 0.25
	MaxRemotePlanRequests   = 5
)

// RemoteTargets evaluates the targets of a remote plan on rep.
func (rep Report) RemoteTargets(peerGiven bool) []Target {
	var out []Target
	for _, key := range []string{KeyBerthNoWait, KeyJobNoWait} {
		b, ok := rep.row(key)
		if !ok {
			out = append(out, Target{Name: key + " plan", Status: "skipped (" + key + " not run)"})
			continue
		}
		for _, against := range []struct {
			key   string
			limit float64
		}{{KeyFloor, MaxRemotePlanFloorRatio}, {KeyPeerDetach, MaxRemotePlanPeerRatio}} {
			t := Target{Name: fmt.Sprintf("%s plan <= %.2fx %s plan", key, against.limit, against.key)}
			o, ok := rep.row(against.key)
			switch {
			case against.key == KeyPeerDetach && !peerGiven:
				t.Status = "skipped (no PEER_PROVIDER)"
			case !ok:
				t.Status = "skipped (" + against.key + " not run)"
			default:
				r := b.secs(Plan) / o.secs(Plan)
				t.Status = passFail(r <= against.limit)
				t.Detail = fmt.Sprintf("%.2fs vs %.2fs: %.2fx", b.secs(Plan), o.secs(Plan), r)
			}
			out = append(out, t)
		}
		req := b.Median[Plan].Requests
		out = append(out, Target{Name: fmt.Sprintf("%s plan requests <= %d (one namespace)", key, MaxRemotePlanRequests),
			Status: passFail(req <= MaxRemotePlanRequests), Detail: fmt.Sprintf("%d requests, longest chain %d", req, b.Median[Plan].Chain)})
	}
	return out
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// LoadReport reads a report written by WriteJSON.
func LoadReport(file string) (*Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &rep, nil
}

// WriteJSON writes rep to file.
func (rep Report) WriteJSON(file string) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// Print writes the tables and the targets; it returns whether any target
// failed.
func (rep Report) Print(w io.Writer, targets []Target) bool {
	fmt.Fprintf(w, "\nN = %d, median of %d runs, -parallelism=%d; Terraform %s, Nomad %s, %d CPUs\n\n",
		rep.N, rep.Runs, rep.Parallelism, rep.Terraform, rep.Nomad, rep.CPUs)
	if rep.Growth {
		fmt.Fprintf(w, "Growth mode: every job has the constraint %s %s, which no node meets: the jobs register and are "+
			"compared but never placed, and only the variants that do not wait run.\n\n", neverAttribute, neverOperator)
	}

	if rep.RTT > 0 {
		fmt.Fprintf(w, "Every request waited %s in the proxy (a cluster across a network).\n\n", rep.RTT)
	}
	fmt.Fprintln(w, "Seconds (wall): create N (apply), plan N unchanged (refresh), apply a change to one of N, destroy N; and the requests each plan made:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| | create | plan (refresh) | change one | destroy | plan requests | per resource |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.2f | %d | %.2f |\n", r.Label, r.secs(Apply), r.secs(Plan), r.secs(Change), r.secs(Destroy),
			r.Median[Plan].Requests, float64(r.Median[Plan].Requests)/float64(rep.N))
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Requests / the longest chain of them in sequence (each sent after the one before was answered; across a network a command waits at least that many round trips):")
	fmt.Fprintln(w)
	rep.phaseTable(w, false, func(m Sample) string { return fmt.Sprintf("%d / %d", m.Requests, m.Chain) })

	floor, hasFloor := rep.row(KeyFloor)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Ratios of the medians (berth rows to their peer: detach = true for no wait, detach = false for waiting):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| | create ×peer | plan ×peer | change ×peer | destroy ×peer | create ×floor | plan ×floor | change ×floor | destroy ×floor |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rep.Rows {
		cells := []string{r.Label}
		p, hasPeer := rep.row(r.Peer)
		for _, ph := range Phases {
			cells = append(cells, ratioCell(r, p, hasPeer, ph))
		}
		for _, ph := range Phases {
			cells = append(cells, ratioCell(r, floor, hasFloor && r.Key != KeyFloor, ph))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "CPU seconds (user+sys, median): terraform / plugins / Nomad agent:")
	fmt.Fprintln(w)
	rep.phaseTable(w, false, func(m Sample) string {
		return fmt.Sprintf("%.2f / %.2f / %.2f", m.TerraformCPU.Seconds(), m.PluginCPU.Seconds(), m.AgentCPU.Seconds())
	})

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Peak resident memory of the plugin (MiB, median; the largest plugin process of the command):")
	fmt.Fprintln(w)
	// terraform_data is built into Terraform: no plugin.
	rep.phaseTable(w, true, func(m Sample) string { return mib(m.PluginPeak) })

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Requests by endpoint (a run with the median count):")
	for _, ph := range Phases {
		for _, r := range rep.Rows {
			m := r.Median[ph]
			if m.Requests == 0 {
				continue
			}
			var parts []string
			for _, e := range ByEndpoint(m.Endpoints) {
				parts = append(parts, fmt.Sprintf("%s ×%d", e.Endpoint, e.Requests))
			}
			fmt.Fprintf(w, "  %-8s %-13s %s\n", string(ph)+":", r.Key+":", strings.Join(parts, ", "))
		}
	}
	for _, r := range rep.Rows {
		if r.Median[Plan].PlanChanged {
			fmt.Fprintf(w, "WARNING: %s: a plan right after apply was not empty (see its run*-plan.log)\n", r.Key)
		}
	}

	failed := false
	if len(targets) == 0 {
		return failed
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Targets:")
	for _, t := range targets {
		line := fmt.Sprintf("  %-4s  %s", t.Status, t.Name)
		if strings.HasPrefix(t.Status, "skipped") {
			line = fmt.Sprintf("  SKIP  %s: %s", t.Name, t.Status)
		}
		if t.Detail != "" {
			line += ": " + t.Detail
		}
		fmt.Fprintln(w, line)
		failed = failed || t.Failed()
	}
	return failed
}

// phaseTable writes a table of a cell per phase for every row (but the
// floor's, with noFloor).
func (rep Report) phaseTable(w io.Writer, noFloor bool, cell func(Sample) string) {
	fmt.Fprintln(w, "| | create | plan | change one | destroy |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, r := range rep.Rows {
		if noFloor && r.Key == KeyFloor {
			continue
		}
		cells := []string{r.Label}
		for _, ph := range Phases {
			cells = append(cells, cell(r.Median[ph]))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// mib formats bytes as MiB ("–" for unknown).
func mib(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

func ratioCell(r, base Row, ok bool, ph Phase) string {
	if !ok || base.secs(ph) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.secs(ph)/base.secs(ph))
}
