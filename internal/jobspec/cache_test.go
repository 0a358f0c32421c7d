package jobspec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// plainJob is an HCL2 jobspec without a function call, named id.
func plainJob(id string) string {
	return fmt.Sprintf(`
variable "memory" {
  type    = number
  default = 64
}
job %q {
  meta = { owner = "payments" }
  group "web" {
    count = 2
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["${var.memory}"]
      }
      resources { memory = var.memory }
    }
  }
}`, id)
}

func cached(t *testing.T, s Spec) (cacheEntry, bool) {
	t.Helper()
	return parsed.get(cacheKey(parserID(s.FormatOf(), sharedParser(t)), s.FormatOf(), s))
}

// Plain HCL2 and JSON are kept after their first parse, and a hit is the
// same job as a parse without the cache.
func TestParseCacheKeepsStableSpecs(t *testing.T) {
	hcl := Spec{Source: plainJob("cache-plain")}
	jsonSrc, err := JSONOf(parse(t, hcl), nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonSrc = strings.Replace(jsonSrc, `"cache-plain"`, `"cache-json"`, 2)
	for _, s := range []Spec{hcl, {Source: jsonSrc}, {Source: plainJob("cache-vars"), Variables: map[string]string{"memory": "96"}}} {
		first := parse(t, s)
		e, ok := cached(t, s)
		if !ok || !e.stable || len(e.job) == 0 { // kept
			t.Fatalf("%s spec %s not kept: %+v %v", s.FormatOf(), *first.ID, e, ok)
		}
		before := sharedParser(t).(*agentParser).calls.Load()
		hit := parse(t, s)
		if asked := sharedParser(t).(*agentParser).calls.Load() - before; asked != 0 {
			t.Fatalf("%s: a cached jobspec asked the cluster %d times", *first.ID, asked)
		}
		fresh, err := parseUncached(s, s.FormatOf(), sharedParser(t))
		if err != nil {
			t.Fatal(err)
		}
		freshJob, _, err := splitJob(fresh)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := roundTrip(freshJob)
		if !reflect.DeepEqual(hit, want) || !reflect.DeepEqual(first, want) {
			t.Fatalf("%s: the cached job differs from a fresh parse", *first.ID)
		}
	}
}

// The variables are part of the key: another -var value is another job.
func TestParseCacheKeysVariables(t *testing.T) {
	src := plainJob("cache-keyed")
	a := parse(t, Spec{Source: src, Variables: map[string]string{"memory": "80"}})
	b := parse(t, Spec{Source: src, Variables: map[string]string{"memory": "90"}})
	c := parse(t, Spec{Source: src})
	got := []int{*a.TaskGroups[0].Tasks[0].Resources.MemoryMB, *b.TaskGroups[0].Tasks[0].Resources.MemoryMB,
		*c.TaskGroups[0].Tasks[0].Resources.MemoryMB}
	if !reflect.DeepEqual(got, []int{80, 90, 64}) {
		t.Fatalf("memory per variables %v, want [80 90 64]", got)
	}
	if cacheKey("", FormatHCL2, Spec{Source: "a", Variables: map[string]string{"b": "c"}}) ==
		cacheKey("", FormatHCL2, Spec{Source: "a2:b=c"}) {
		t.Fatal("a variable and a longer source share a key")
	}
}

// Each hit is a job of its own: what one caller changes, the next does
// not see.
func TestParseCacheHitIsIndependent(t *testing.T) {
	s := Spec{Source: plainJob("cache-copy")}
	first := parse(t, s)
	ns := "elsewhere"
	first.Namespace = &ns
	first.Meta["owner"] = "changed"
	*first.TaskGroups[0].Count = 9
	first.TaskGroups[0].Tasks[0].Config["args"] = []any{"changed"}
	first.TaskGroups = append(first.TaskGroups, first.TaskGroups[0])

	second := parse(t, s)
	if second.Namespace != nil || second.Meta["owner"] != "payments" || *second.TaskGroups[0].Count != 2 ||
		len(second.TaskGroups) != 1 || fmt.Sprint(second.TaskGroups[0].Tasks[0].Config["args"]) != "[64]" {
		t.Fatalf("a hit shows an earlier caller's changes: %+v", second)
	}
}

// A jobspec that calls uuidv4() is never kept, and stays reported
// unstable however often it is described.
func TestParseCacheSkipsFunctionCalls(t *testing.T) {
	s := Spec{Source: strings.Replace(unstableJob(`meta { run_id = uuidv4() }`, ""), `job "j"`, `job "cache-uuid"`, 1)}
	for range 3 {
		if fields := unstable(t, s); !reflect.DeepEqual(fields, []string{"meta.run_id"}) {
			t.Fatalf("unstable fields %q, want [meta.run_id]", fields)
		}
		if e, ok := cached(t, s); !ok || e.stable || e.job != nil {
			t.Fatalf("a jobspec calling uuidv4() is kept: %+v %v", e, ok)
		}
	}
	a, b := parse(t, s), parse(t, s)
	if a.Meta["run_id"] == b.Meta["run_id"] {
		t.Fatal("two parses share one uuidv4()")
	}
}

// The allow-list: any call, even of a function that always returns the
// same, and HCL's JSON syntax (where any string may hold a call) keep a
// jobspec out of the cache.
func TestStableSource(t *testing.T) {
	for _, tc := range []struct {
		name, format, source string
		want                 bool
	}{
		{"plain", FormatHCL2, plainJob("x"), true},
		{"json", FormatJSON, `{"ID": "x"}`, true},
		{"call in a task", FormatHCL2, strings.Replace(plainJob("x"), `"payments"`, `upper("payments")`, 1), false},
		{"call in a variable default", FormatHCL2, strings.Replace(plainJob("x"), "default = 64", "default = max(1, 64)", 1), false},
		{"call in a template", FormatHCL2, strings.Replace(plainJob("x"), `"${var.memory}"`, `"${timestamp()}"`, 1), false},
		{"hcl json syntax", FormatHCL2, `{"job": {"x": {"meta": {"a": "${uuidv4()}"}}}}`, false},
		{"syntax error", FormatHCL2, `job "x" {`, false},
	} {
		if got := stableSource(tc.format, tc.source); got != tc.want {
			t.Errorf("%s: stableSource %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The cache holds at most its bounds, dropping the oldest first.
func TestParseCacheBounds(t *testing.T) {
	c := newParseCache(2, 100)
	c.put("a", cacheEntry{job: make([]byte, 10), stable: true})
	c.put("b", cacheEntry{job: make([]byte, 10), stable: true})
	c.put("c", cacheEntry{job: make([]byte, 10), stable: true})
	if _, ok := c.get("a"); ok || c.len() != 2 {
		t.Fatalf("entries past the bound kept: %d", c.len())
	}
	c.put("d", cacheEntry{job: make([]byte, 80), stable: true})
	if _, ok := c.get("b"); ok || c.len() != 2 || c.size > 100 {
		t.Fatalf("bytes past the bound kept: %d entries, %d bytes", c.len(), c.size)
	}
	c.put("e", cacheEntry{job: make([]byte, 200), stable: true})
	if _, ok := c.get("e"); ok {
		t.Fatal("an entry larger than the cache kept")
	}
}
