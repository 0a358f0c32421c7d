package jobspec

import (
	"strconv"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// One berth_job is parsed about eleven times per plan and apply (validate,
// plan, the scheduler's dry run, register, read-back), and jobspec2 is
// most of the plugin's CPU for it. The parsed job is kept per process,
// as the JSON Parse produces anyway, and every hit decodes a fresh job
// from it: callers own and change what Parse returns (a namespace, a pin
// constraint).
//
// Only a jobspec that parses to the same job every time is kept: JSON
// (decoded, never evaluated), and HCL2 native syntax whose syntax tree
// holds no function call at all. A function may differ per call
// (uuidv4(), timestamp(), bcrypt()'s salt), and DescribeUnstable finds
// those by parsing twice, so a jobspec that calls any function, stable or
// not, is parsed every time as before. -var values cannot call functions
// (jobspec2 evaluates them without any), so they only join the key.

// The cache's bounds: what it holds is the key (source and variables)
// and the job's JSON, a few KB per job, so a thousand jobs take a few
// MB. Past either bound the oldest entries go.
const (
	cacheMaxEntries = 4096
	cacheMaxBytes   = 32 << 20
)

// parsed is the process's cache of parsed jobspecs.
var parsed = newParseCache(cacheMaxEntries, cacheMaxBytes)

// cacheEntry is what the cache knows of a jobspec: the parsed job's JSON,
// or, with stable false, that it must be parsed every time (held so the
// syntax check runs once per jobspec, not per parse).
type cacheEntry struct {
	job    []byte
	extra  Extras // shared by every hit: callers only read it
	stable bool
}

type parseCache struct {
	mu                 sync.Mutex
	entries            map[string]cacheEntry
	order              []string // keys, oldest first
	size               int      // bytes of keys and jobs held
	maxEntries, maxLen int
}

func newParseCache(maxEntries, maxBytes int) *parseCache {
	return &parseCache{entries: map[string]cacheEntry{}, maxEntries: maxEntries, maxLen: maxBytes}
}

func (c *parseCache) get(key string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

func (c *parseCache) put(key string, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return // two parses of one jobspec raced; both are the same job
	}
	cost := len(key) + len(e.job)
	if cost > c.maxLen {
		return
	}
	for len(c.order) > 0 && (len(c.order) >= c.maxEntries || c.size+cost > c.maxLen) {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(old) + len(c.entries[old].job)
		delete(c.entries, old)
	}
	c.entries[key] = e
	c.order = append(c.order, key)
	c.size += cost
}

func (c *parseCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// cacheKey names everything a parse depends on: the cluster's parser, the format, the source
// and the variables, each length-prefixed so no two specs share a key.
func cacheKey(parser, format string, s Spec) string {
	b := make([]byte, 0, len(parser)+len(format)+len(s.Source)+32)
	field := func(v string) {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
	}
	field(parser)
	field(format)
	field(s.Source)
	for _, kv := range argVars(s.Variables) { // sorted
		field(kv)
	}
	return string(b)
}

// stableSource reports whether a parse of source, in format, is the same
// job every time: JSON is; HCL2 is when it is in native syntax (jobspec2
// reads a body starting with "{" as HCL's JSON syntax, where any string
// may hold a call) and no expression in it calls a function.
func stableSource(format, source string) bool {
	switch format {
	case FormatJSON:
		return true
	case FormatHCL2:
		if hclJSONSyntax(source) {
			return false
		}
		file, diags := hclsyntax.ParseConfig([]byte(source), parsePath, hcl.Pos{Line: 1, Column: 1})
		if diags.HasErrors() {
			return false
		}
		body, ok := file.Body.(*hclsyntax.Body)
		if !ok {
			return false
		}
		calls := hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
			if _, ok := n.(*hclsyntax.FunctionCallExpr); ok {
				return hcl.Diagnostics{{Severity: hcl.DiagError}}
			}
			return nil
		})
		return !calls.HasErrors()
	}
	return false
}

// hclJSONSyntax is jobspec2's own test for a body in HCL's JSON syntax:
// its first byte other than a space is "{".
func hclJSONSyntax(source string) bool {
	for i := range len(source) {
		if source[i] != ' ' {
			return source[i] == '{'
		}
	}
	return false
}
