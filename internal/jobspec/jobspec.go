// Package jobspec reads a Nomad jobspec, HCL2 exactly as `nomad job run`
// reads it or the JSON of Nomad's API job, into a job, without contacting
// Nomad; and compares a job Nomad holds with what its jobspec says
// (Drift). It is plain Go: berth_job's layers above convert to and from
// Spec.
package jobspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/jobspec2"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// The formats a jobspec is written in.
const (
	FormatHCL2 = "hcl2"
	FormatJSON = "json"
)

// Formats lists the formats, for validators and docs.
func Formats() []string { return []string{FormatHCL2, FormatJSON} }

// Spec is a jobspec as berth_job holds it.
type Spec struct {
	// Source is the jobspec's text.
	Source string
	// Format is FormatHCL2 or FormatJSON; "" detects it (JSON starts with
	// "{").
	Format string
	// Variables are values for the jobspec's HCL2 variable blocks, as
	// `nomad job run -var` gives them.
	Variables map[string]string
}

// FormatOf is the format s is written in.
func (s Spec) FormatOf() string {
	if s.Format != "" {
		return s.Format
	}
	if strings.HasPrefix(strings.TrimSpace(s.Source), "{") {
		return FormatJSON
	}
	return FormatHCL2
}

// ParseError is a jobspec Nomad's parser refuses. Line is 1-based, 0 when
// the parser names no place.
type ParseError struct {
	Line, Column int
	Message      string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
	}
	return e.Message
}

// Parse reads s into a job, as `nomad job run` would submit it: HCL2
// through Nomad's own parser (jobspec2, strict, no file system access),
// JSON as Nomad's API job (bare, or wrapped as {"Job": …} the way `nomad
// job inspect` prints it). The job is returned as Nomad's JSON API
// would carry it, so it compares value for value with a job read back.
// Each call returns a job of its own; a jobspec that parses to the same
// job every time is parsed once per process (cache.go).
func Parse(s Spec) (*api.Job, error) {
	format := s.FormatOf()
	key := cacheKey(format, s)
	if e, ok := parsed.get(key); ok && e.stable {
		return decodeJob(e.job)
	}
	job, err := parseUncached(s, format)
	if err != nil {
		return nil, err
	}
	encoded, err := encodeJob(job)
	if err != nil {
		return nil, err
	}
	if _, known := parsed.get(key); !known {
		if stableSource(format, s.Source) {
			parsed.put(key, cacheEntry{job: encoded, stable: true})
		} else {
			parsed.put(key, cacheEntry{}) // parsed every time
		}
	}
	return decodeJob(encoded)
}

// parseUncached is Parse without the cache.
func parseUncached(s Spec, format string) (*api.Job, error) {
	var job *api.Job
	switch format {
	case FormatJSON:
		j, err := parseJSON(s.Source)
		if err != nil {
			return nil, err
		}
		job = j
	case FormatHCL2:
		j, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{
			Path: parsePath, Body: []byte(s.Source), ArgVars: argVars(s.Variables), Strict: true,
		})
		if err != nil {
			return nil, parseError(err)
		}
		job = j
	default:
		return nil, &ParseError{Message: fmt.Sprintf("unknown format %q: use %q or %q", s.Format, FormatHCL2, FormatJSON)}
	}
	if job.ID == nil || *job.ID == "" {
		return nil, &ParseError{Message: "the job has no ID (a job block's label, or \"ID\" in JSON)"}
	}
	return job, nil
}

func argVars(vars map[string]string) []string {
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

func parseJSON(src string) (*api.Job, error) {
	var wrapped struct{ Job *api.Job }
	dec := json.NewDecoder(strings.NewReader(src))
	if err := dec.Decode(&wrapped); err != nil {
		return nil, jsonError(src, err)
	}
	if wrapped.Job != nil {
		return wrapped.Job, nil
	}
	var job api.Job
	if err := json.Unmarshal([]byte(src), &job); err != nil {
		return nil, jsonError(src, err)
	}
	return &job, nil
}

// jsonError places a JSON syntax error at its line.
func jsonError(src string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 {
		return &ParseError{Message: err.Error()}
	}
	before := src[:min(int(offset), len(src))]
	line := strings.Count(before, "\n") + 1
	col := len(before) - strings.LastIndex(before, "\n")
	return &ParseError{Line: line, Column: col, Message: err.Error()}
}

// parseError keeps the first of the parser's diagnostics with its place:
// jobspec2 returns them formatted, "<file>:<line>,<col>-<col>: <summary>;
// <detail>", or as hcl.Diagnostics.
func parseError(err error) error {
	var diags hcl.Diagnostics
	if errors.As(err, &diags) {
		for _, d := range diags {
			if d.Severity != hcl.DiagError {
				continue
			}
			pe := &ParseError{Message: strings.TrimSuffix(d.Summary+"; "+d.Detail, "; ")}
			if d.Subject != nil {
				pe.Line, pe.Column = d.Subject.Start.Line, d.Subject.Start.Column
			}
			return pe
		}
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	if m := placed.FindStringSubmatch(first); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return &ParseError{Line: line, Column: col, Message: m[3]}
	}
	return &ParseError{Message: strings.TrimPrefix(err.Error(), "<nil>: ")}
}

// placed is a diagnostic as jobspec2 formats it.
var placed = regexp.MustCompile(`^` + regexp.QuoteMeta(parsePath) + `:(\d+),(\d+)(?:-[\d,]+)?: (.*)$`)

// parsePath is the file name the parser is told; it only shows in its
// messages, which ParseError replaces by the line.
const parsePath = "jobspec.nomad.hcl"

// encodeJob and decodeJob are a round trip through JSON: the job as
// Nomad's JSON API carries it (numbers in driver config as float64, empty
// blocks as Nomad encodes them), and each decode a job of its own.
func encodeJob(job *api.Job) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(job); err != nil {
		return nil, &ParseError{Message: "encoding the job: " + err.Error()}
	}
	return buf.Bytes(), nil
}

// roundTrip is a copy of job as Nomad's JSON API carries it.
func roundTrip(job *api.Job) (*api.Job, error) {
	encoded, err := encodeJob(job)
	if err != nil {
		return nil, err
	}
	return decodeJob(encoded)
}

func decodeJob(encoded []byte) (*api.Job, error) {
	var out api.Job
	if err := json.Unmarshal(encoded, &out); err != nil {
		return nil, &ParseError{Message: "decoding the job: " + err.Error()}
	}
	return &out, nil
}

// Summary is what the layers above need to know of a jobspec: its
// identity and what an apply waits for.
type Summary struct {
	ID, Namespace, Type string // Namespace "" and Type "" when the jobspec leaves them to Nomad
	// Periodic and Parameterized jobs only register: their runs are
	// launched later (by the clock, by a dispatch).
	Periodic, Parameterized bool
	// ManualHealth: some group's update.health_check is "manual", so
	// nothing berth could wait for ends its deployment.
	ManualHealth bool
	Groups       []string
	// Charge is what the job takes from a node reservation: every group's
	// tasks' cpu and memory and its ephemeral disk, times its count, with
	// Nomad's defaults where the jobspec sets none.
	Charge capacity.Resources
}

// Describe parses s and summarizes it.
func Describe(s Spec) (Summary, error) {
	job, err := Parse(s)
	if err != nil {
		return Summary{}, err
	}
	return summarize(job), nil
}

// summarize is Describe of a parsed job.
func summarize(job *api.Job) Summary {
	sum := Summary{ID: *job.ID, Namespace: deref(job.Namespace), Type: deref(job.Type),
		Periodic: job.Periodic != nil && (job.Periodic.Enabled == nil || *job.Periodic.Enabled), Parameterized: job.ParameterizedJob != nil}
	manual := func(u *api.UpdateStrategy) bool { return u != nil && deref(u.HealthCheck) == "manual" }
	sum.ManualHealth = manual(job.Update)
	for _, g := range job.TaskGroups {
		sum.Groups = append(sum.Groups, deref(g.Name))
		sum.ManualHealth = sum.ManualHealth || manual(g.Update)
	}
	sum.Charge = chargeOf(job)
	return sum
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// serverFields are what Nomad sets on a job and a jobspec never says:
// JSONOf leaves them out, so an imported job's jobspec holds only what can
// be submitted again.
var serverFields = []string{"Stop", "ParentID", "Dispatched", "DispatchIdempotencyToken", "Payload", "ConsulNamespace",
	"VaultNamespace", "NomadTokenID", "Status", "StatusDescription", "Stable", "Version", "SubmitTime", "CreateIndex",
	"ModifyIndex", "JobModifyIndex", "VersionTag"}

// JSONOf is job as a JSON jobspec, without the fields Nomad sets: compact,
// keys sorted, as Terraform's jsonencode writes it, so the configuration
// `terraform query` generates (which uses jsonencode for a JSON string)
// holds the same text.
func JSONOf(job *api.Job) (string, error) {
	raw, err := json.Marshal(job)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	for _, k := range serverFields {
		delete(m, k)
	}
	out, err := json.Marshal(m)
	return string(out), err
}

// chargeOf sums what job's groups take, on a canonicalized copy, so that
// Nomad's defaults (task cpu and memory, the group's ephemeral disk, a
// count of 1) count as the scheduler counts them.
func chargeOf(job *api.Job) capacity.Resources {
	j, err := roundTrip(job)
	if err != nil {
		return capacity.Resources{}
	}
	j.Canonicalize()
	var total capacity.Resources
	for _, g := range j.TaskGroups {
		var per capacity.Resources
		for _, t := range g.Tasks {
			if t.Resources != nil {
				per.CPU += int64(deref(t.Resources.CPU))
				per.MemoryMB += int64(deref(t.Resources.MemoryMB))
			}
		}
		if g.EphemeralDisk != nil {
			per.DiskMB = int64(deref(g.EphemeralDisk.SizeMB))
		}
		n := int64(deref(g.Count))
		total.CPU += per.CPU * n
		total.MemoryMB += per.MemoryMB * n
		total.DiskMB += per.DiskMB * n
	}
	return total
}
