package nomadtypes

import (
	"path/filepath"
	"slices"
	"testing"
)

// The check finds an alias of a Nomad API type and a value of one
// returned by another package, on their lines only, and ignores tests and
// code that uses berth's own types.
func TestCheckFindsNomadTypesThroughAliases(t *testing.T) {
	findings, err := Check(".", "./testdata/above")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range findings {
		if filepath.Base(f.Pos.Filename) != "above.go" {
			t.Errorf("finding outside above.go: %s", f)
		}
		lines = append(lines, f.Pos.Line)
	}
	if want := []int{7, 8, 12}; !slices.Equal(lines, want) {
		t.Fatalf("findings on lines %v, want %v:\n%v", lines, want, findings)
	}
}
