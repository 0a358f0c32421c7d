package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// ExpectNoChanges is plancheck.ExpectEmptyPlan that, on failure, names the
// attributes that would change, so a drift bug is diagnosable from CI logs.
type ExpectNoChanges struct{}

func (ExpectNoChanges) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var problems []string
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change.Actions.NoOp() {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		var diffs []string
		for k := range Union(before, after) {
			if !reflect.DeepEqual(before[k], after[k]) {
				b, _ := json.Marshal(before[k])
				a, _ := json.Marshal(after[k])
				diffs = append(diffs, fmt.Sprintf("%s: %s -> %s", k, b, a))
			}
		}
		sort.Strings(diffs)
		problems = append(problems, fmt.Sprintf("%s %v:\n    %s", rc.Address, rc.Change.Actions, strings.Join(diffs, "\n    ")))
	}
	if len(problems) > 0 {
		resp.Error = fmt.Errorf("expected an empty plan, got:\n  %s", strings.Join(problems, "\n  "))
	}
}

func Union(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// ExpectPlanRejects plans config with the real terraform CLI against a
// provider pointed at a closed port, and expects an error matching want:
// the input is rejected before anything could reach Nomad.
func ExpectPlanRejects(t *testing.T, config, want string) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      "provider \"berth\" {\n  address = \"http://127.0.0.1:1\"\n}\n" + config,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}},
	})
}
