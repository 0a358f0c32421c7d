package variable

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for path, ok := range map[string]bool{
		"app/db": true, "a": true, "nomad/jobs": true, "nomad/jobs/web/g/t": true, "nomad/job-templates/x": true,
		"": false, "nomad": false, "nomad/other": false, "nomad/job-templates": false, "nomad/job-templates/a/b": false,
		"a.b": false, "a@b": false, "a b": false, strings.Repeat("a", 129): false, strings.Repeat("a", 128): true,
	} {
		if err := CheckPath(path); (err == nil) != ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", path, err, ok)
		}
	}
}

func TestSplit(t *testing.T) {
	plain, secret := Split(map[string]string{"a": "1", "pw": "s", "new": "x"}, []string{"pw", "gone"})
	if !reflect.DeepEqual(plain, map[string]string{"a": "1", "new": "x"}) || !reflect.DeepEqual(secret, []string{"pw"}) {
		t.Errorf("Split = %v, %v", plain, secret)
	}
}

func TestOverlapMergeSize(t *testing.T) {
	p, s := map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "x", "c": "yy"}
	if got := Overlap(p, s); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("Overlap = %v", got)
	}
	if got := Merge(map[string]string{"a": "1"}, map[string]string{"c": "2"}); !reflect.DeepEqual(got, map[string]string{"a": "1", "c": "2"}) {
		t.Errorf("Merge = %v", got)
	}
	if got := Size(p, s); got != 2+2+2+3 {
		t.Errorf("Size = %d", got)
	}
}

func TestImportCandidates(t *testing.T) {
	if got := ImportCandidates("db", "default"); !reflect.DeepEqual(got, []Ref{{"default", "db"}}) {
		t.Errorf("got %v", got)
	}
	want := []Ref{{"apps", "db/x"}, {"default", "apps/db/x"}}
	if got := ImportCandidates("apps/db/x", "default"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
