package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Growth is a growth-mode run at several N: one report per N, smallest N
// first. It shows how each cost grows with the number of resources.
type Growth struct {
	Reports []Report `json:"reports"`
}

// MaxLinearGrowth is the growth factor above which a figure is marked as
// growing faster than linearly (with some room for a noisy machine).
const MaxLinearGrowth = 1.25

// WriteJSON writes g to file.
func (g Growth) WriteJSON(file string) error {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// growthRatio is the cost per resource at n over the cost per resource at
// n0: 1 when the cost grows linearly with the number of resources, more
// when it grows faster. It is false when there is no cost at n0 to compare
// with.
func growthRatio(cost float64, n int, cost0 float64, n0 int) (float64, bool) {
	if cost0 <= 0 || n <= 0 || n0 <= 0 {
		return 0, false
	}
	return (cost / float64(n)) / (cost0 / float64(n0)), true
}

// growthCell formats a growth ratio, bold when above MaxLinearGrowth.
func growthCell(cost float64, n int, cost0 float64, n0 int) string {
	g, ok := growthRatio(cost, n, cost0, n0)
	switch {
	case !ok:
		return "–"
	case g > MaxLinearGrowth:
		return fmt.Sprintf("**%.2f**", g)
	default:
		return fmt.Sprintf("%.2f", g)
	}
}

// Print writes one growth table per phase: for every variant, a row per
// N with its seconds, requests, CPU of terraform, plugin and agent and the
// plugin's peak memory, each cost also as its growth against linear.
func (g Growth) Print(w io.Writer) {
	if len(g.Reports) == 0 {
		return
	}
	reps := slices.Clone(g.Reports)
	slices.SortFunc(reps, func(a, b Report) int { return a.N - b.N })
	first := reps[0]
	var ns []string
	for _, rep := range reps {
		ns = append(ns, fmt.Sprint(rep.N))
	}
	fmt.Fprintf(w, "\nGrowth at N = %s (jobs never placed), median of %d runs, -parallelism=%d; Terraform %s, Nomad %s, %d CPUs.\n",
		strings.Join(ns, ", "), first.Runs, first.Parallelism, first.Terraform, first.Nomad, first.CPUs)
	fmt.Fprintf(w, "×linear is the cost per resource at N over the cost per resource at N = %d: 1.00 grows linearly, "+
		"above 1 faster (bold above %.2f). ×peer is the seconds over those of the row's peer at the same N.\n", first.N, MaxLinearGrowth)

	// Variants in table order, as the first report has them.
	var keys []string
	for _, rep := range reps {
		for _, r := range rep.Rows {
			if !slices.Contains(keys, r.Key) {
				keys = append(keys, r.Key)
			}
		}
	}
	for _, ph := range Phases {
		fmt.Fprintf(w, "\n%s:\n\n", ph)
		fmt.Fprintln(w, "| | N | seconds | ×linear | ×peer | requests | per resource | CPU s terraform / plugin / agent | ×linear terraform / plugin / agent | plugin peak MiB |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, key := range keys {
			var base *Row
			baseN := 0
			for _, rep := range reps {
				r, ok := rep.row(key)
				if !ok {
					continue
				}
				if base == nil {
					base, baseN = &r, rep.N
				}
				m, b := r.Median[ph], base.Median[ph]
				peer := "–"
				if p, ok := rep.row(r.Peer); ok {
					peer = ratioCell(r, p, true, ph)
				}
				lin := func(f func(Sample) time.Duration) string {
					return growthCell(f(m).Seconds(), rep.N, f(b).Seconds(), baseN)
				}
				tf := func(s Sample) time.Duration { return s.TerraformCPU }
				pl := func(s Sample) time.Duration { return s.PluginCPU }
				ag := func(s Sample) time.Duration { return s.AgentCPU }
				plugin := lin(pl)
				if key == KeyFloor {
					plugin = "–" // terraform_data is built into Terraform: no plugin
				}
				fmt.Fprintf(w, "| %s | %d | %.2f | %s | %s | %d | %.2f | %.2f / %.2f / %.2f | %s / %s / %s | %s |\n",
					r.Label, rep.N, m.Wall.Seconds(), lin(func(s Sample) time.Duration { return s.Wall }), peer,
					m.Requests, float64(m.Requests)/float64(rep.N),
					m.TerraformCPU.Seconds(), m.PluginCPU.Seconds(), m.AgentCPU.Seconds(),
					lin(tf), plugin, lin(ag), mib(m.PluginPeak))
			}
		}
	}
}

// ParseNs reads the bench's -ns: comma- or space-separated N, each at least 1, no
// duplicates; they run in the order given.
func ParseNs(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-ns: %q is not a number of resources", f)
		}
		if slices.Contains(ns, n) {
			return nil, fmt.Errorf("-ns: %d given twice", n)
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, errors.New("-ns: no N given")
	}
	return ns, nil
}
