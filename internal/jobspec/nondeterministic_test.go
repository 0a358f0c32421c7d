package jobspec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// unstableJob is a raw_exec job whose group g and task t hold the
// blocks and attributes given.
func unstableJob(jobBlocks, taskBlocks string) string {
	return fmt.Sprintf(`
locals {
  build = uuidv4()
}
job "j" {
  %s
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      %s
    }
  }
}`, jobBlocks, taskBlocks)
}

func unstable(t *testing.T, s Spec) []string {
	t.Helper()
	sum, fields, err := DescribeUnstable(s, sharedParser(t))
	if err != nil {
		t.Fatal(err)
	}
	if sum.ID == "" {
		t.Fatalf("no summary: %+v", sum)
	}
	return fields
}

// A uuidv4() in meta (directly, or through a local) is named down to its
// key; the meta keys that stay put are not named.
func TestDescribeUnstableNamesMetaKey(t *testing.T) {
	src := unstableJob(`meta {
    run_id = uuidv4()
    build  = local.build
    team   = "payments"
  }`, `meta { fixed = "yes" }`)
	got := unstable(t, Spec{Source: src})
	if want := []string{"meta.build", "meta.run_id"}; !slices.Equal(got, want) {
		t.Fatalf("unstable fields %q, want %q", got, want)
	}
}

// A uuidv4() interpolated into a template's data, and a bcrypt() hash
// (its salt is random) in env, inside a labeled group and task; no value
// is shown.
func TestDescribeUnstableNamesTemplateAndEnv(t *testing.T) {
	src := unstableJob("", `env {
        PASSWORD_HASH = bcrypt("hunter2")
        LEVEL         = "info"
      }
      template {
        data        = "static"
        destination = "local/a"
      }
      template {
        data        = "instance=${uuidv4()}"
        destination = "local/b"
      }`)
	got := unstable(t, Spec{Source: src})
	want := []string{`group "g" / task "t" / env.PASSWORD_HASH`, `group "g" / task "t" / template[1].data`}
	if !slices.Equal(got, want) {
		t.Fatalf("unstable fields %q, want %q", got, want)
	}
	for _, f := range got {
		if strings.Contains(f, "$2a$") || strings.Contains(f, "instance=") {
			t.Fatalf("a value shows in %q", f)
		}
	}
}

// What stays the same on every parse names nothing: a plain jobspec,
// consul-template's {{ timestamp }} (the client renders it, the parser
// keeps the text), a runtime ${node.unique.id}, uuidv5() (a hash of its
// arguments), and JSON (decoded, never evaluated).
func TestDescribeUnstableNothingForDeterministic(t *testing.T) {
	for name, s := range map[string]Spec{
		"plain": {Source: twoGroups},
		"runtime functions": {Source: unstableJob(`meta { ns = uuidv5("dns", "example.com") }`, `template {
        data        = "started {{ timestamp }} on ${node.unique.id}"
        destination = "local/started"
      }`)},
		"json": {Source: `{"ID": "j", "Meta": {"run_id": "uuidv4()"}, "TaskGroups": [{"Name": "g"}]}`},
	} {
		if got := unstable(t, s); got != nil {
			t.Errorf("%s: unstable fields %q, want none", name, got)
		}
	}
}

// Nomad's parser has no timestamp() (unlike Terraform's language): a
// jobspec calling it is refused, as `nomad job validate` refuses it,
// rather than warned about.
func TestDescribeUnstableTimestampIsNotNomads(t *testing.T) {
	_, _, err := DescribeUnstable(Spec{Source: unstableJob(`meta { at = timestamp() }`, "")}, sharedParser(t))
	if err == nil || !strings.Contains(err.Error(), "timestamp") {
		t.Fatalf("timestamp() parsed (err %v); Nomad's parser has no such function", err)
	}
}

// What the second parse costs a plan that changes a job: compare with
// BenchmarkDescribe (go test -bench Describe ./internal/jobspec/).
func BenchmarkDescribeUnstable(b *testing.B) {
	for b.Loop() {
		if _, _, err := DescribeUnstable(Spec{Source: twoGroups}, sharedParser(b)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDescribe(b *testing.B) {
	for b.Loop() {
		if _, err := Describe(Spec{Source: twoGroups}, sharedParser(b)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusterParse is one parse request to the test agent, without
// the cache: what a jobspec berth has not seen costs.
func BenchmarkClusterParse(b *testing.B) {
	p := sharedParser(b)
	s := Spec{Source: twoGroups}
	for b.Loop() {
		if _, err := parseUncached(s, FormatHCL2, p); err != nil {
			b.Fatal(err)
		}
	}
}
