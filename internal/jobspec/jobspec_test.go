package jobspec

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

const twoGroups = `
variable "memory" {
  type    = number
  default = 64
}

job "shop" {
  datacenters = ["dc1"]
  meta = { owner = "payments" }

  group "web" {
    count = 2
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      env { LOG_LEVEL = "info" }
      resources {
        cpu    = 50
        memory = var.memory
      }
    }
  }

  group "worker" {
    task "run" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}
`

func parse(t *testing.T, s Spec) *api.Job {
	t.Helper()
	job, _, err := Parse(s, sharedParser(t))
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func TestParseHCL2(t *testing.T) {
	job := parse(t, Spec{Source: twoGroups, Variables: map[string]string{"memory": "96"}})
	if *job.ID != "shop" || len(job.TaskGroups) != 2 || *job.TaskGroups[0].Count != 2 {
		t.Fatalf("parsed %s with %d groups", *job.ID, len(job.TaskGroups))
	}
	if got := *job.TaskGroups[0].Tasks[0].Resources.MemoryMB; got != 96 {
		t.Errorf("memory = %d, want the variable's 96", got)
	}
	if got := job.TaskGroups[0].Tasks[0].Config["args"]; !slices.Equal(got.([]any), []any{"3600"}) {
		t.Errorf("config args %#v", got)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := map[string]struct {
		spec Spec
		line int
		text string
	}{
		"hcl syntax":       {Spec{Source: "job \"x\" {\n  group \"g\" {\n    count = \n  }\n}\n"}, 3, ""},
		"hcl unknown":      {Spec{Source: "job \"x\" {\n  bogus = 1\n}\n"}, 2, "bogus"},
		"json syntax":      {Spec{Source: "{\n  \"ID\": \"x\",\n  \"Name\": ,\n}"}, 3, ""},
		"no id":            {Spec{Source: `{"Name": "x"}`}, 0, "no ID"},
		"unknown format":   {Spec{Source: "job \"x\" {}", Format: "yaml"}, 0, "unknown format"},
		"missing variable": {Spec{Source: "variable \"v\" {}\njob \"x\" {\n  datacenters = [var.v]\n}\n"}, 0, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := Parse(tc.spec, sharedParser(t))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a *ParseError, got %v", err)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tc.line, pe)
			}
			if !strings.Contains(pe.Error(), tc.text) {
				t.Errorf("%q does not say %q", pe.Error(), tc.text)
			}
		})
	}
}

func TestParseJSONWrappedOrBare(t *testing.T) {
	for _, src := range []string{`{"Job": {"ID": "j", "Type": "batch"}}`, `{"ID": "j", "Type": "batch"}`} {
		job := parse(t, Spec{Source: src})
		if *job.ID != "j" || *job.Type != "batch" {
			t.Errorf("%s: parsed %+v", src, job)
		}
	}
	if f := (Spec{Source: "  {\"ID\": \"j\"}"}).FormatOf(); f != FormatJSON {
		t.Errorf("format %q", f)
	}
}

func TestDrift(t *testing.T) {
	want := parse(t, Spec{Source: twoGroups})
	if d := Drift(want, want); len(d) != 0 {
		t.Fatalf("a job drifts from itself: %v", d)
	}
	// What Nomad fills in never drifts.
	live := parse(t, Spec{Source: twoGroups})
	live.Canonicalize()
	live.Status, live.Version = ptr("running"), ptr(uint64(3))
	if d := Drift(want, live); len(d) != 0 {
		t.Fatalf("Nomad's defaults drift: %v", d)
	}
	// What the jobspec sets does, named as the jobspec names it.
	live.TaskGroups[0].Tasks[0].Resources.MemoryMB = ptr(256)
	live.TaskGroups[0].Tasks[0].Env["EXTRA"] = "1"
	live.TaskGroups[0].Tasks[0].Config["args"] = []any{"60"}
	live.TaskGroups = live.TaskGroups[:1]
	live.Meta = nil
	got := Drift(want, live)
	for _, w := range []string{
		`group "web" / task "app" / resources.memory: 256 → 64`,
		`group "web" / task "app" / env: {"EXTRA":"1","LOG_LEVEL":"info"} → {"LOG_LEVEL":"info"}`,
		`group "web" / task "app" / config: `,
		`group "worker": missing in Nomad`,
		`meta: (unset) → {"owner":"payments"}`,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("drift %q not reported in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != 5 {
		t.Errorf("want 5 drifted fields, got %d:\n%s", len(got), strings.Join(got, "\n"))
	}
}

func ptr[T any](v T) *T { return &v }

// Where Nomad keeps what a jobspec says elsewhere, or adds to it, no
// drift; what the jobspec sets and Nomad lost still drifts.
func TestDriftFollowsNomadsPlacement(t *testing.T) {
	want := parse(t, Spec{Source: `
job "j" {
  update { min_healthy_time = "30s" }
  migrate { max_parallel = 2 }
  reschedule { delay = "5s" }
  group "g" {
    constraint {
      attribute = "${attr.kernel.name}"
      value     = "linux"
    }
    task "t" {
      driver      = "raw_exec"
      kill_signal = "sigint"
      config { command = "/bin/true" }
      resources { disk = 100 }
    }
  }
}`})
	live := parse(t, Spec{Source: `
job "j" {
  update { max_parallel = 1 }
  group "g" {
    update { min_healthy_time = "30s" }
    migrate { max_parallel = 2 }
    reschedule { delay = "5s" }
    ephemeral_disk { size = 100 }
    constraint {
      attribute = "${attr.kernel.name}"
      value     = "linux"
    }
    constraint {
      attribute = "${attr.os.signals}"
      operator  = "set_contains"
      value     = "SIGINT"
    }
    task "t" {
      driver      = "raw_exec"
      kill_signal = "SIGINT"
      config { command = "/bin/true" }
    }
  }
}`})
	if d := Drift(want, live); len(d) != 0 {
		t.Fatalf("Nomad's placement of the same settings drifts:\n%s", strings.Join(d, "\n"))
	}
	live.TaskGroups[0].Constraints = live.TaskGroups[0].Constraints[1:]
	live.TaskGroups[0].Update.MinHealthyTime = ptr(time.Minute)
	got := Drift(want, live)
	for _, w := range []string{`group "g" / constraint: {"LTarget":"${attr.kernel.name}"`, `group "g" / update.min_healthy_time: 1m0s → 30s`} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("drift %q not reported in:\n%s", w, strings.Join(got, "\n"))
		}
	}
}
