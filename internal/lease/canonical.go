package lease

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// The first line of the signed bytes names its version. Bump it whenever the
// format changes so an old signature can never verify under a new meaning.
// v1 is the form of leases without a signing time (signed before signing
// times existed, which must keep verifying); v2 adds signed_at.
const (
	canonicalV1 = "berth-lease-v1"
	canonicalV2 = "berth-lease-v2"
)

// CanonicalBytes is what a lease signature covers. The format is eight lines,
// each terminated by "\n", in this fixed order:
//
//	berth-lease-v1
//	name=<JSON string>
//	namespace=<JSON string>          ("" is written as "default")
//	node=<JSON string>               ("" when Nomad places the lease)
//	user=<JSON string>               (hex public key, "" when unsigned)
//	workload=<JSON object>
//	created_at=<RFC 3339, UTC, whole seconds, e.g. 2025-01-02T03:04:05Z>
//	duration=<decimal whole seconds, e.g. 3600>
//
// The workload object always has exactly these keys, sorted bytewise:
//
//	{"args":[<strings in order>],"command":<string>,"cpu":<int>,"disk":<int>,
//	 "driver":<string>,"env":{<sorted key: string>},"image":<string>,"memory":<int>}
//
// with no whitespace; empty args is [], empty env is {}, and a disk of 0 is
// written as Nomad's default 300.
//
// A lease with a SignedAt is written in version 2: the first line is
// berth-lease-v2, and a line
//
//	signed_at=<RFC 3339, UTC, with nanoseconds, trailing zeros dropped>
//
// follows the duration line (before reference, when set). A referring
// lease adds reference=<JSON string> and, since references are bound to an
// allocation, reference_alloc=<JSON string> after it. A signature over
// one version never verifies under the other, so removing signed_at from a
// job does not turn it back into an older, undated lease.
//
// JSON strings are as encoded by Go's
// encoding/json with HTML escaping off (only ", \, control characters and
// U+2028/U+2029 are escaped), so any JSON encoder that sorts keys and does not
// escape "<>&" reproduces them.
//
// Quoting every string keeps a newline or "=" inside a value from forging
// another line. Every string must be valid UTF-8 (JSON would otherwise
// replace bad bytes, letting different inputs share bytes), the duration and
// created_at must be whole seconds and the duration positive; otherwise
// CanonicalBytes returns an error. Namespace "" and disk 0 are the only
// values that share bytes with another (the values Nomad substitutes for
// them), because they produce the same job.
func CanonicalBytes(l Lease) ([]byte, error) {
	if err := checkTiming(l); err != nil {
		return nil, err
	}
	if err := checkUTF8(l); err != nil {
		return nil, err
	}
	e := l.effective()
	w := e.Workload

	args := w.Args
	if args == nil {
		args = []string{}
	}
	env := w.Env
	if env == nil {
		env = map[string]string{}
	}
	// encoding/json writes map keys sorted, which gives the canonical order
	// regardless of how the caller's maps iterate.
	fields := map[string]any{
		"args":    args,
		"command": w.Command,
		"cpu":     w.CPU,
		"disk":    w.Disk,
		"driver":  w.Driver,
		"env":     env,
		"image":   w.Image,
		"memory":  w.Memory,
	}
	if len(w.Ports) > 0 {
		// Only when set: leases signed before ports existed keep their
		// bytes, and so their signatures.
		fields["ports"] = w.Ports
	}
	workload, err := encodeJSON(fields)
	if err != nil {
		return nil, err
	}

	var b bytes.Buffer
	version := canonicalV1
	if !e.SignedAt.IsZero() {
		version = canonicalV2
	}
	b.WriteString(version + "\n")
	for _, f := range []struct{ key, val string }{
		{"name", e.Name},
		{"namespace", e.Namespace},
		{"node", e.NodeID},
		{"user", e.User},
	} {
		q, err := encodeJSON(f.val)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s=%s\n", f.key, q)
	}
	fmt.Fprintf(&b, "workload=%s\n", workload)
	fmt.Fprintf(&b, "created_at=%s\n", e.CreatedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "duration=%d\n", int64(e.Duration/time.Second))
	if !e.SignedAt.IsZero() {
		fmt.Fprintf(&b, "signed_at=%s\n", signedStamp(e.SignedAt))
	}
	if e.Reference != "" {
		// Only when set, as ports: older leases keep their bytes.
		q, err := encodeJSON(e.Reference)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "reference=%s\n", q)
	}
	if e.ReferenceAlloc != "" {
		// Only when set: referring leases of earlier berths keep their bytes.
		q, err := encodeJSON(e.ReferenceAlloc)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "reference_alloc=%s\n", q)
	}
	return b.Bytes(), nil
}

// encodeJSON is json.Marshal without HTML escaping, so the format is easy to
// reproduce outside Go.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func checkUTF8(l Lease) error {
	w := l.Workload
	fields := []struct{ name, val string }{
		{"name", l.Name}, {"namespace", l.Namespace}, {"node", l.NodeID}, {"user", l.User}, {"reference", l.Reference}, {"reference_alloc", l.ReferenceAlloc},
		{"workload.driver", w.Driver}, {"workload.image", w.Image}, {"workload.command", w.Command},
	}
	for i, a := range w.Args {
		fields = append(fields, struct{ name, val string }{fmt.Sprintf("workload.args[%d]", i), a})
	}
	for k, v := range w.Env {
		fields = append(fields, struct{ name, val string }{"workload.env key", k}, struct{ name, val string }{"workload.env value", v})
	}
	for i, p := range w.Ports {
		fields = append(fields, struct{ name, val string }{fmt.Sprintf("workload.ports[%d]", i), p})
	}
	for _, f := range fields {
		if !utf8.ValidString(f.val) {
			return fmt.Errorf("%s is not valid UTF-8", f.name)
		}
	}
	return nil
}

// signedStamp is how SignedAt is written, in the signed bytes and in meta.
func signedStamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// readSignedAt takes SignedAt from meta; a value that is not a time is
// reported as foreign (and left zero, so the signature no longer matches).
func (r *reader) readSignedAt(l *Lease, meta map[string]string) {
	v, ok := meta[MetaSignedAt]
	if !ok {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		r.add("meta %s %q is not an RFC 3339 time", MetaSignedAt, v)
		return
	}
	l.SignedAt = t.UTC()
}
