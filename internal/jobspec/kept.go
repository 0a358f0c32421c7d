package jobspec

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
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

type keptParse struct {
	Key string          `json:"key"` // sha256 of the cache key: no source or variable in state twice
	Job json.RawMessage `json:"job"`
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
	out, _ := json.Marshal(keptParse{Key: hashKey(key), Job: whole})
	return gzipped(out)
}

// gzipped is b compressed, as a JSON string of base64 (private state
// holds JSON in UTF-8): a parse is a few KiB of JSON with every field of
// the api structs, and Terraform writes private state into the state
// file, which it serializes whole after each resource of an apply.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level: no error
	_, _ = zw.Write(b)
	if zw.Close() != nil {
		return nil
	}
	out, _ := json.Marshal(base64.StdEncoding.EncodeToString(buf.Bytes())) // a string always marshals
	return out
}

// gunzipped reverses gzipped; a kept parse of an earlier berth (plain
// JSON) is returned as it is.
func gunzipped(b []byte) []byte {
	if len(b) > 0 && b[0] == '{' {
		return b
	}
	var text string
	if json.Unmarshal(b, &text) != nil {
		return nil
	}
	zipped, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, maxKeptParse))
	if err != nil {
		return nil
	}
	return out
}

// maxKeptParse bounds a kept parse once unzipped.
const maxKeptParse = 16 << 20

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
	if json.Unmarshal(gunzipped(kept), &k) != nil || k.Key != hashKey(key) || !stableSource(format, s.Source) {
		return
	}
	if _, known := parsed.get(key); known {
		return
	}
	job, extra, err := splitJob(k.Job)
	if err != nil || job.ID == nil {
		return
	}
	encoded, err := encodeJob(job)
	if err != nil {
		return
	}
	parsed.put(key, cacheEntry{job: encoded, extra: extra, stable: true})
}

// RestoreKept puts a parse Keep returned back into the process cache
// under the key it names, without the jobspec at hand: the apply of a
// new berth_job, which sees the plan's private state but not the
// framework's (it gives none to Create). The entry is found only by a
// parse of the same jobspec, variables, format and cluster version.
func RestoreKept(kept []byte) {
	if len(kept) == 0 {
		return
	}
	var k keptParse
	if json.Unmarshal(gunzipped(kept), &k) != nil || len(k.Key) != sha256.Size*2 {
		return
	}
	if _, known := parsed.getHashed(k.Key); known {
		return
	}
	job, extra, err := splitJob(k.Job)
	if err != nil || job.ID == nil {
		return
	}
	encoded, err := encodeJob(job)
	if err != nil {
		return
	}
	parsed.putHashed(k.Key, cacheEntry{job: encoded, extra: extra, stable: true})
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
