// Package jobspec reads a Nomad jobspec, HCL2 through the cluster's own
// parser exactly as `nomad job run` reads it, or the JSON of Nomad's API
// job, into a job; and compares a job Nomad holds with what its jobspec says
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

	"github.com/hashicorp/nomad/api"

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

// Parser is the cluster's own parser of HCL2 jobspecs (POST
// /v1/jobs/parse, as `nomad job run` asks it), so that berth reads every
// block the cluster knows, whatever its version. berth links no parser of
// its own.
type Parser interface {
	// ParseHCL returns Nomad's JSON of the job src describes, with vars as
	// `nomad job run -var` gives them; a jobspec Nomad refuses is a
	// *ParseError.
	ParseHCL(src string, vars map[string]string) ([]byte, error)
	// ParserID names the cluster and its version: two parsers with one ID
	// read every jobspec alike, so they share the cache.
	ParserID() string
}

// Parse reads s into a job, as `nomad job run` would submit it: HCL2
// through p, the cluster's parser, after the checks berth makes itself
// (CheckOffline: syntax, and the variables against the jobspec's variable
// blocks, strictly); JSON as Nomad's API job (bare, or wrapped as {"Job":
// …} the way `nomad job inspect` prints it), without p. The job is
// returned as Nomad's JSON API would carry it, so it compares value for
// value with a job read back, with the fields berth's api structs do not
// hold beside it. Each call returns a job of its own; a jobspec that
// parses to the same job every time is parsed once per process and
// cluster (cache.go).
func Parse(s Spec, p Parser) (*api.Job, Extras, error) {
	format := s.FormatOf()
	key := cacheKey(parserID(format, p), format, s)
	if e, ok := parsed.get(key); ok && e.stable {
		job, err := decodeJob(e.job)
		return job, e.extra, err
	}
	raw, err := parseUncached(s, format, p)
	if err != nil {
		return nil, nil, err
	}
	job, extra, err := splitJob(raw)
	if err != nil {
		return nil, nil, &ParseError{Message: err.Error()}
	}
	if job.ID == nil || *job.ID == "" {
		return nil, nil, &ParseError{Message: "the job has no ID (a job block's label, or \"ID\" in JSON)"}
	}
	encoded, err := encodeJob(job)
	if err != nil {
		return nil, nil, err
	}
	if _, known := parsed.get(key); !known {
		if stableSource(format, s.Source) {
			parsed.put(key, cacheEntry{job: encoded, extra: extra, stable: true})
		} else {
			parsed.put(key, cacheEntry{}) // parsed every time
		}
	}
	job, err = decodeJob(encoded)
	return job, extra, err
}

func parserID(format string, p Parser) string {
	if format != FormatHCL2 || p == nil {
		return ""
	}
	return p.ParserID()
}

// parseUncached is Parse without the cache: Nomad's JSON of the job.
func parseUncached(s Spec, format string, p Parser) ([]byte, error) {
	switch format {
	case FormatJSON:
		return jobObject(s.Source)
	case FormatHCL2:
		if err := CheckOffline(s); err != nil {
			return nil, err
		}
		if p == nil {
			return nil, &ParseError{Message: "no Nomad cluster to parse the jobspec with"}
		}
		return p.ParseHCL(s.Source, s.Variables)
	default:
		return nil, &ParseError{Message: fmt.Sprintf("unknown format %q: use %q or %q", s.Format, FormatHCL2, FormatJSON)}
	}
}

func argVars(vars map[string]string) []string {
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// jobObject is the job object of a JSON jobspec: the value of "Job" when
// it is wrapped, the whole object otherwise.
func jobObject(src string) ([]byte, error) {
	var wrapped map[string]json.RawMessage
	if err := json.Unmarshal([]byte(src), &wrapped); err != nil {
		return nil, jsonError(src, err)
	}
	for k, v := range wrapped {
		if strings.EqualFold(k, "Job") && len(v) > 0 && v[0] == '{' {
			return v, nil
		}
	}
	return []byte(src), nil
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

// NomadParseError places the message of a jobspec the cluster's parser
// refused: "Failed to parse job: input.hcl:3,5-11: Unsupported block
// type; …" becomes line 3, column 5 and the rest, in Nomad's words.
func NomadParseError(msg string) *ParseError {
	msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(msg), "Failed to parse job:"))
	first, _, _ := strings.Cut(msg, "\n")
	if m := placed.FindStringSubmatch(first); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return &ParseError{Line: line, Column: col, Message: m[3]}
	}
	return &ParseError{Message: strings.TrimPrefix(msg, "<nil>: ")}
}

// placed is a diagnostic as Nomad's parser formats it, with the file name
// its HTTP API gives the jobspec.
var placed = regexp.MustCompile(`^(?:input\.hcl|` + regexp.QuoteMeta(parsePath) + `):(\d+),(\d+)(?:-[\d,]+)?: (.*)$`)

// parsePath is the file name berth's own checks give the jobspec; it only
// shows in their messages, which ParseError replaces by the line.
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

// Describe parses s (with p, the cluster's parser) and summarizes it.
func Describe(s Spec, p Parser) (Summary, error) {
	job, _, err := Parse(s, p)
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

// JSONOf is job as a JSON jobspec, with the fields berth's api structs
// do not hold (extra), without the fields Nomad sets: compact,
// keys sorted, as Terraform's jsonencode writes it, so the configuration
// `terraform query` generates (which uses jsonencode for a JSON string)
// holds the same text.
func JSONOf(job *api.Job, extra Extras) (string, error) {
	raw, err := Encode(job, extra)
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
