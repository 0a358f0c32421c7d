package nomadclient

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestDescribeFailingChecks(t *testing.T) {
	a := &api.AllocationListStub{ID: "0123456789abcdef", NodeName: "node-1"}
	got := describeFailingChecks(a, api.AllocCheckStatuses{
		"1": {Check: "ready", Service: "web", Task: "app", Status: "failure", StatusCode: 404, Output: "nope\n  not   found"},
		"2": {Check: "alive", Service: "web", Task: "app", Status: "success"},
		"3": {Check: "admin", Service: "admin", Task: "app", Status: "pending", Output: strings.Repeat("x", 300)},
	})
	want := []string{
		`allocation 01234567 on node node-1: check "admin" of service "admin" (task "app") is pending: ` + strings.Repeat("x", maxCheckOutput) + "...",
		`allocation 01234567 on node node-1: check "ready" of service "web" (task "app") is failure (HTTP 404): nope not found`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
