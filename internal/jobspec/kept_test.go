package jobspec

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// A parse kept in private state comes back into another process's cache
// under its own key, is stored compressed as JSON in UTF-8, and is found
// still right (KeptFor) without being compressed again.
func TestKeptParseComesBack(t *testing.T) {
	s := Spec{Source: plainJob("kept-back")}
	const parser = "http://nomad.example:4646 1.11.3"
	key := cacheKey(parser, FormatHCL2, s)
	job := []byte(`{"ID":"kept-back","Name":"kept-back","TaskGroups":[{"Name":"web","Count":2}]}` + "\n")
	parsed.put(key, cacheEntry{job: job, stable: true})
	kept := Keep(s, parser)
	if len(kept) == 0 {
		t.Fatal("nothing kept")
	}
	if bytes.Contains(kept, []byte("kept-back")) || bytes.Contains(kept, []byte("TaskGroups")) {
		t.Fatalf("the kept parse is not compressed: %q", kept)
	}
	if !json.Valid(kept) || !utf8.Valid(kept) {
		t.Fatalf("the kept parse is not JSON in UTF-8 (private state takes nothing else): %q", kept)
	}
	if !KeptFor(kept, s, parser) || KeptFor(kept, s, "http://nomad.example:4646 1.12.0") ||
		KeptFor(kept, Spec{Source: plainJob("other")}, parser) {
		t.Fatal("KeptFor does not tell the kept parse's jobspec and cluster version")
	}

	fresh := newParseCache(cacheMaxEntries, cacheMaxBytes)
	saved := parsed
	parsed = fresh
	t.Cleanup(func() { parsed = saved })
	Restore(kept, s, "http://nomad.example:4646 1.12.0") // another cluster version: another parse
	if fresh.len() != 0 {
		t.Fatal("a parse of another cluster version was restored")
	}
	Restore(kept[:len(kept)/2], s, parser)
	if fresh.len() != 0 {
		t.Fatal("a truncated kept parse was restored")
	}
	Restore(kept, s, parser)
	e, ok := parsed.get(key)
	if !ok || !e.stable || !bytes.Contains(e.job, []byte(`"kept-back"`)) {
		t.Fatalf("not restored: %+v %v", e, ok)
	}
}
