package jobspec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A job as a newer Nomad carries it: fields berth's api structs lack at
// the job, a group and a task.
const newerJob = `{"ID": "shop", "FutureJob": {"a": 1},
  "TaskGroups": [{"Name": "web", "Count": 2, "FutureGroup": "on",
    "Tasks": [{"Name": "app", "Driver": "raw_exec", "FutureTask": [{"Provider": "nomad", "Path": "x"}]}]}]}`

func TestExtrasKeepWhatTheStructsDrop(t *testing.T) {
	job, extra, err := splitJob([]byte(newerJob))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`FutureJob`, `group "web" / FutureGroup`, `group "web" / task "app" / FutureTask`}
	if got := extra.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("extras %q, want %q", got, want)
	}
	// berth changes the job as it does (a count, a namespace); what it
	// sends still holds every field.
	*job.TaskGroups[0].Count = 3
	ns := "prod"
	job.Namespace = &ns
	body, err := Encode(job, extra)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	group := sent["TaskGroups"].([]any)[0].(map[string]any)
	task := group["Tasks"].([]any)[0].(map[string]any)
	if sent["Namespace"] != "prod" || group["Count"] != float64(3) || group["FutureGroup"] != "on" ||
		sent["FutureJob"] == nil || task["FutureTask"] == nil {
		t.Fatalf("sent %s", body)
	}
	// The JSON an import records holds them too.
	text, err := JSONOf(job, extra)
	if err != nil || !strings.Contains(text, `"FutureTask":[{"Path":"x","Provider":"nomad"}]`) {
		t.Fatalf("JSONOf %s (%v)", text, err)
	}
}

func TestExtraDriftComparesWhatTheJobspecSets(t *testing.T) {
	_, want, _ := splitJob([]byte(newerJob))
	if d := ExtraDrift(want, want); len(d) != 0 {
		t.Fatalf("a job drifts from itself: %q", d)
	}
	_, live, _ := splitJob([]byte(strings.Replace(newerJob, `"on"`, `"off"`, 1)))
	if d := ExtraDrift(want, live); !reflect.DeepEqual(d, []string{`group "web" / FutureGroup: "off" → "on"`}) {
		t.Fatalf("drift %q", d)
	}
	_, bare, _ := splitJob([]byte(`{"ID": "shop", "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "app"}]}]}`))
	if d := ExtraDrift(bare, live); len(d) != 0 {
		t.Fatalf("fields the jobspec does not set drift: %q", d)
	}
	if d := ExtraDrift(want, bare); len(d) != 3 || !strings.Contains(d[0], "(not set)") {
		t.Fatalf("fields Nomad lost: %q", d)
	}
}

func TestCheckOffline(t *testing.T) {
	src := "variable \"n\" {\n  type = number\n}\nvariable \"s\" {\n  default = \"x\"\n}\njob \"j\" {\n  future_block {}\n}\n"
	for _, tc := range []struct {
		name string
		vars map[string]string
		line int
		text string
	}{
		{"all given", map[string]string{"n": "2"}, 0, ""},
		{"required missing", nil, 1, `variable "n" has no default`},
		{"undeclared", map[string]string{"n": "2", "other": "x"}, 0, `"other", which the jobspec declares no variable block for`},
	} {
		err := CheckOffline(Spec{Source: src, Variables: tc.vars})
		if tc.text == "" {
			if err != nil {
				t.Errorf("%s: %v (a block berth does not know is the cluster's to judge)", tc.name, err)
			}
			continue
		}
		pe, ok := err.(*ParseError)
		if !ok || pe.Line != tc.line || !strings.Contains(pe.Message, tc.text) {
			t.Errorf("%s: %v, want line %d saying %q", tc.name, err, tc.line, tc.text)
		}
	}
	if err := CheckOffline(Spec{Source: "job \"j\" {\n  count = \n}\n"}); err == nil || err.(*ParseError).Line != 2 {
		t.Errorf("syntax error: %v", err)
	}
}

func TestVariablesFileTypesValuesAsMinusVar(t *testing.T) {
	src := "variable \"n\" {\n  type = number\n}\nvariable \"l\" {\n  type = list(string)\n}\nvariable \"s\" {}\njob \"j\" {}\n"
	got, err := VariablesFile(Spec{Source: src, Variables: map[string]string{"n": "2", "l": `["a"]`, "s": "${x} %{y} \"q\""}})
	want := "l = [\"a\"]\nn = 2\ns = \"$${x} %%{y} \\\"q\\\"\"\n"
	if err != nil || got != want {
		t.Fatalf("VariablesFile:\n%s\nwant:\n%s (%v)", got, want, err)
	}
}

// The cluster reads the variables file as `nomad job run -var` reads its
// values: a string literally, a list as an expression.
func TestVariablesReachTheClusterAsMinusVar(t *testing.T) {
	src := "variable \"l\" {\n  type = list(string)\n}\nvariable \"s\" {}\njob \"vars\" {\n  datacenters = var.l\n  meta = { s = var.s }\n" +
		"  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config { command = \"/bin/true\" }\n    }\n  }\n}\n"
	job, _, err := Parse(Spec{Source: src, Variables: map[string]string{"l": `["dc1", "dc2"]`, "s": `${x} "q"`}}, sharedParser(t))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(job.Datacenters, []string{"dc1", "dc2"}) || job.Meta["s"] != `${x} "q"` {
		t.Fatalf("datacenters %q, meta %q", job.Datacenters, job.Meta)
	}
}

// A service's Namespace is Nomad's copy of the job's: not a setting of
// anyone's. Another value there, or any other extra, is.
func TestExtraFilledByNomad(t *testing.T) {
	raw := `{"ID": "shop", "Namespace": "prod", "TaskGroups": [{"Name": "web",
  "Services": [{"Name": "a", "Namespace": "prod"}, {"Name": "b", "Namespace": "other"}],
  "Tasks": [{"Name": "app", "Services": [{"Name": "c", "Namespace": "prod", "FutureService": 1}]}]}]}`
	job, extra, err := splitJob([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, e := range extra {
		if !e.FilledByNomad(job) {
			users = append(users, e.Name)
		}
	}
	want := []string{`group "web" / Services "b" / Namespace`, `group "web" / task "app" / Services "c" / FutureService`}
	if !reflect.DeepEqual(users, want) {
		t.Fatalf("settings of someone's: %q, want %q (all extras: %q)", users, want, extra.Names())
	}
}
