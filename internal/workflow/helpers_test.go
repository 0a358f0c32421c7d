package workflow

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// errKinds names the typed errors of an outcome for comparison.
func errKinds(errs ...error) []string {
	var out []string
	for _, err := range errs {
		if err != nil {
			out = append(out, fmt.Sprintf("%T", err))
		}
	}
	return out
}

// wantRun is what a workflow case expects: the steps taken in order, the
// error's type ("" for none) and the types of the failed undo steps.
type wantRun struct {
	steps    []string
	err      string
	problems []string
}

// check compares what a workflow did with w.
func (w wantRun) check(t *testing.T, steps []string, err error, problems []error) {
	t.Helper()
	if got := strings.Join(steps, ", "); got != strings.Join(w.steps, ", ") {
		t.Errorf("steps:\n got %s\nwant %s", got, strings.Join(w.steps, ", "))
	}
	if got := strings.Join(errKinds(err), ""); got != w.err {
		t.Errorf("error %q (%v), want %q", got, err, w.err)
	}
	if got := errKinds(problems...); !slices.Equal(got, w.problems) {
		t.Errorf("problems %v (%v), want %v", got, problems, w.problems)
	}
}
