package jobspec

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
)

// A refresh of an unchanged berth_job compares the live job with its
// jobspec, which takes a parse: a request to the cluster in each new
// provider process. berth_job keeps its jobspec's parse in private state
// (Keep) and hands it back to the next process (Restore), so a refresh or
// plan of an unchanged job asks the cluster nothing more than the job.
// The parse is bound to everything it depends on: the cluster and its
// version (the parser's ID), the format, the source and the variables.
// Only a jobspec that parses to the same job every time is kept, as in the
// process cache.
//
// The job is gzipped (a parse is a few KiB of JSON holding every field of
// the api structs, and Terraform writes private state into the state file,
// which it serializes whole after each resource of an apply), as base64:
// private state holds JSON in UTF-8. The key stays outside, so a kept
// parse that is still the right one is left as it is (KeptFor), never
// compressed again.
type keptParse struct {
	Key    string          `json:"key"`           // sha256 of the cache key: no source or variable in state twice
	Zipped string          `json:"gz,omitempty"`  // the job's JSON, gzipped, base64
	Job    json.RawMessage `json:"job,omitempty"` // plain: what an earlier berth kept
}

// Keep is s's parse by parser id as private state holds it; nil when the
// process has none to keep.
func Keep(s Spec, parserID string) []byte {
	format := s.FormatOf()
	if format != FormatHCL2 {
		return nil // JSON is decoded, never asked of the cluster
	}
	key := cacheKey(parserID, format, s)
	e, ok := parsed.get(key)
	if !ok || !e.stable {
		return nil
	}
	job, err := decodeJob(e.job)
	if err != nil {
		return nil
	}
	whole, err := Encode(job, e.extra)
	if err != nil {
		return nil
	}
	zipped, ok := gzipped(whole)
	if !ok {
		return nil
	}
	out, _ := json.Marshal(keptParse{Key: hashKey(key), Zipped: zipped}) // strings always marshal
	return out
}

// KeptFor reports whether kept (what private state holds) is the parse of
// s by parser id: then it needs no keeping again.
func KeptFor(kept []byte, s Spec, parserID string) bool {
	var k keptParse
	return len(kept) > 0 && json.Unmarshal(kept, &k) == nil &&
		k.Key == hashKey(cacheKey(parserID, s.FormatOf(), s)) && k.Zipped != ""
}

// Restore puts a parse Keep returned back into the process cache, when it
// is the parse of s by parser id; anything else is ignored (the jobspec is
// then parsed again).
func Restore(kept []byte, s Spec, parserID string) {
	format := s.FormatOf()
	if len(kept) == 0 || format != FormatHCL2 {
		return
	}
	var k keptParse
	key := cacheKey(parserID, format, s)
	if json.Unmarshal(kept, &k) != nil || k.Key != hashKey(key) || !stableSource(format, s.Source) {
		return
	}
	if _, known := parsed.get(key); known {
		return
	}
	whole := []byte(k.Job)
	if k.Zipped != "" {
		var ok bool
		if whole, ok = gunzipped(k.Zipped); !ok {
			return
		}
	}
	job, extra, err := splitJob(whole)
	if err != nil || job.ID == nil {
		return
	}
	encoded, err := encodeJob(job)
	if err != nil {
		return
	}
	parsed.put(key, cacheEntry{job: encoded, extra: extra, stable: true})
}

// gzipWriters are reused: a flate compressor holds about a MiB of state,
// and a plan keeps the parse of every new or changed job.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
	return zw
}}

// gzipped is b gzipped, as base64.
func gzipped(b []byte) (string, bool) {
	var buf bytes.Buffer
	zw, ok := gzipWriters.Get().(*gzip.Writer)
	if !ok {
		return "", false
	}
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(b); err != nil || zw.Close() != nil {
		return "", false
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), true
}

// maxKeptParse bounds a kept parse once unzipped.
const maxKeptParse = 16 << 20

// gunzipped reverses gzipped.
func gunzipped(text string) ([]byte, bool) {
	zipped, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil, false
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, maxKeptParse))
	return out, err == nil
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
