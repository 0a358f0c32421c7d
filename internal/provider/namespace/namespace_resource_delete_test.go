package namespace

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func TestNameSome(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c, d, e"},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "a, b, c, d, e and 2 more"},
	} {
		if got := nameSome(tc.in); got != tc.want {
			t.Errorf("nameSome(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNamespaceInUseDetail(t *testing.T) {
	berth := namespaceInUseDetail(&nomadclient.NamespaceInUseError{Name: "team", Contents: nomadclient.NamespaceContents{
		Jobs: []string{"j1", "j2", "j3", "j4", "j5", "j6"}, HostVolumes: []string{"data"}}})
	for _, want := range []string{`namespace "team"`, "Nothing was deleted", "Jobs (any status, until purged): j1, j2, j3, j4, j5 and 1 more.",
		"Host volumes: data.", "-namespace team"} {
		if !strings.Contains(berth, want) {
			t.Errorf("detail lacks %q:\n%s", want, berth)
		}
	}
	if strings.Contains(berth, "Variables") || strings.Contains(berth, "CSI volumes:") {
		t.Errorf("detail names kinds with nothing in them:\n%s", berth)
	}
	nomad := namespaceInUseDetail(&nomadclient.NamespaceInUseError{Name: "team", Err: errors.New("namespace \"team\" has non-terminal allocations in regions: [global]")})
	if !strings.Contains(nomad, "Nomad refused") || !strings.Contains(nomad, "non-terminal allocations") {
		t.Errorf("detail does not give Nomad's refusal:\n%s", nomad)
	}
}
