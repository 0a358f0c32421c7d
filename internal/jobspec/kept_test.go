package jobspec

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// A parse kept in private state comes back into another process's cache
// under its own key, by the jobspec (Restore) or by the key alone
// (RestoreKept, a create's apply), and is stored compressed.
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
	// Private state takes JSON in UTF-8 only.
	if !json.Valid(kept) || !utf8.Valid(kept) {
		t.Fatalf("the kept parse is not JSON in UTF-8: %q", kept)
	}
	for name, restore := range map[string]func(){
		"by its jobspec": func() { Restore(kept, s, parser) },
		"by its key":     func() { RestoreKept(kept) },
	} {
		parsed.drop(key)
		if _, ok := parsed.get(key); ok {
			t.Fatal("the entry is still cached")
		}
		restore()
		e, ok := parsed.get(key)
		if !ok || !e.stable || !bytes.Contains(e.job, []byte(`"kept-back"`)) {
			t.Fatalf("%s: not restored: %+v %v", name, e, ok)
		}
	}
	// Another cluster version is another parse: nothing is found for it.
	parsed.drop(key)
	Restore(kept, s, "http://nomad.example:4646 1.12.0")
	if _, ok := parsed.get(cacheKey("http://nomad.example:4646 1.12.0", FormatHCL2, s)); ok {
		t.Fatal("a parse of another cluster version was restored")
	}
	RestoreKept(append([]byte(nil), kept[:len(kept)/2]...))
	if _, ok := parsed.get(key); ok {
		t.Fatal("a truncated kept parse was restored")
	}
}

// drop removes key's entry (tests).
func (c *parseCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := hashKey(key)
	if e, ok := c.entries[h]; ok {
		c.size -= len(h) + len(e.job)
		delete(c.entries, h)
		c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == h })
	}
}
