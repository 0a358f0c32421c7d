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

// TestClassify: only a value berth had as plain is kept; a key it wrote
// write-only is a secret key; a new key and a changed value are withheld
// (the review's case: db_pass added write-only, reply lost, state not
// updated).
func TestClassify(t *testing.T) {
	items := map[string]string{"a": "1", "pw": "s", "db_pass": "S3CRET", "moved": "NEWSECRET"}
	plain, secret, withheld := Classify(items, map[string]string{"a": "1", "moved": "old", "gone": "x"}, []string{"pw", "old"})
	if !reflect.DeepEqual(plain, map[string]string{"a": "1"}) {
		t.Errorf("plain = %v", plain)
	}
	if !reflect.DeepEqual(secret, []string{"db_pass", "moved", "pw"}) || !reflect.DeepEqual(withheld, []string{"db_pass", "moved"}) {
		t.Errorf("secret = %v, withheld = %v", secret, withheld)
	}
	// An import knows nothing as plain: every key is withheld.
	plain, secret, withheld = Classify(map[string]string{"a": "1", "b": "2"}, nil, nil)
	if len(plain) != 0 || !reflect.DeepEqual(secret, []string{"a", "b"}) || !reflect.DeepEqual(withheld, []string{"a", "b"}) {
		t.Errorf("import: plain = %v, secret = %v, withheld = %v", plain, secret, withheld)
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

// A credential's path refuses what workloads read without a policy.
func TestCheckSecretPath(t *testing.T) {
	for path, ok := range map[string]bool{
		"tokens/ci": true, "nomad/jobsx": false, "nomad/jobs": false, "nomad/jobs/ci": false, "nomad/jobs/ci/g/t": false,
		"nomad/job-templates/x": true, "a.b": false, "jobs/nomad/jobs": true,
	} {
		if err := CheckSecretPath(path); (err == nil) != ok {
			t.Errorf("CheckSecretPath(%q) = %v, want ok=%v", path, err, ok)
		}
	}
}
