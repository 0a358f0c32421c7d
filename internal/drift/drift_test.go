package drift

import (
	"reflect"
	"testing"
	"time"
)

type inner struct {
	Port int `tf:"port"`
}

type sample struct {
	Name    string            `tf:"name"`
	At      time.Time         `tf:"at"`
	Wait    time.Duration     `tf:"wait"`
	Env     map[string]string `tf:"env"`
	Args    []string          `tf:"args"`
	Mode    *string           `tf:"mode"`
	Default *int              `tf:"default" diff:"presence"`
	Block   *inner            `tf:"block"`
	Ignored string            `tf:"ignored" diff:"-"`
	Untag   string
}

func TestDiff(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mode, three := "fast", 3
	a := sample{Name: "a", At: at, Wait: time.Second, Env: map[string]string{"K": "1"}, Args: []string{"x"}}
	b := sample{Name: "b", At: at.Add(time.Minute), Wait: time.Minute, Env: map[string]string{"N": "2"}, Args: nil,
		Mode: &mode, Default: &three, Block: &inner{Port: 80}, Ignored: "x", Untag: "y"}
	want := []string{
		`name: "a" -> "b"`,
		"at: 2026-01-02T03:04:05Z -> 2026-01-02T03:05:05Z",
		"wait: 1s -> 1m0s",
		`env.K: "1" -> (unset)`,
		`env.N: (unset) -> "2"`,
		`args: ["x"] -> []`,
		// mode: a pointer to a plain value is compared only when both set it
		"default: (unset) -> 3",
		"block: added",
	}
	if got := Diff(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff =\n%q\nwant\n%q", got, want)
	}
	if got := Diff(b, b); got != nil {
		t.Errorf("Diff of equal values = %q", got)
	}
}

type withSecrets struct {
	Token string            `tf:"token" diff:"sensitive"`
	Opts  map[string]string `tf:"opts" diff:"sensitive"`
	Items []secretItem      `tf:"items"`
}

type secretItem struct {
	Src  string            `tf:"src"`
	Opts map[string]string `tf:"opts" diff:"sensitive"`
}

// Sensitive fields are compared by their values but shown without them:
// maps by their keys. A line whose only difference is such a value says so.
func TestDiffSensitive(t *testing.T) {
	a := withSecrets{Token: "t-old", Opts: map[string]string{"sshkey": "k-old"},
		Items: []secretItem{{Src: "git::x", Opts: map[string]string{"sshkey": "k-old", "ref": "main"}}}}
	b := withSecrets{Token: "t-new", Opts: map[string]string{"sshkey": "k-new", "depth": "1"},
		Items: []secretItem{{Src: "git::x", Opts: map[string]string{"sshkey": "k-new", "ref": "main"}}}}
	want := []string{
		`token: "(sensitive value)" -> "(sensitive value)" (a sensitive value differs)`,
		`opts: {"sshkey":"(sensitive value)"} -> {"depth":"(sensitive value)","sshkey":"(sensitive value)"}`,
		`items: [{"src":"git::x","opts":{"ref":"(sensitive value)","sshkey":"(sensitive value)"}}] -> ` +
			`[{"src":"git::x","opts":{"ref":"(sensitive value)","sshkey":"(sensitive value)"}}] (a sensitive value differs)`,
	}
	if got := Diff(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff =\n%q\nwant\n%q", got, want)
	}
	if got := Diff(a, a); got != nil {
		t.Errorf("Diff of equal values = %q", got)
	}
}
