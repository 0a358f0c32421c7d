package variable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// expectBefore checks the value an attribute had in the refreshed state a
// plan starts from (Nomad's drift, as the plan shows it), as JSON.
type expectBefore struct{ addr, attr, want string }

func (e expectBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		got, _ := json.Marshal(before[e.attr])
		if string(got) != e.want {
			resp.Error = fmt.Errorf("%s.%s before the change = %s, want %s", e.addr, e.attr, got, e.want)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", e.addr)
}

// keysOf lists a Variable's keys (never values) for messages.
func keysOf(v *api.Variable) []string {
	if v == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(v.Items))
}

// expectNowhere fails a plan that holds any of the strings anywhere
// (values kept out of state must not reach a plan either).
type expectNowhere []string

func (e expectNowhere) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	for _, s := range e {
		if strings.Contains(string(b), s) {
			resp.Error = fmt.Errorf("the plan holds %s", s)
			return
		}
	}
}

// importedWithheld checks an imported Variable's state: no plain item
// (berth cannot know which were meant to be secret), every key in
// items_wo_keys.
func importedWithheld(keys ...string) func([]*terraform.InstanceState) error {
	return func(states []*terraform.InstanceState) error {
		if len(states) != 1 {
			return fmt.Errorf("imported %d resources, want 1", len(states))
		}
		a := states[0].Attributes
		if n := a["items.%"]; n != "" && n != "0" {
			return fmt.Errorf("the import stored %s plain items, want none", n)
		}
		if a["items_wo_keys.#"] != fmt.Sprint(len(keys)) {
			return fmt.Errorf("items_wo_keys.# = %q, want %d", a["items_wo_keys.#"], len(keys))
		}
		for i, k := range keys {
			if got := a[fmt.Sprintf("items_wo_keys.%d", i)]; got != k {
				return fmt.Errorf("items_wo_keys.%d = %q, want %q", i, got, k)
			}
		}
		return nil
	}
}

// deleteVar removes a Variable through the API, if it is there.
func deleteVar(t *testing.T, namespace, path string) {
	t.Helper()
	if _, err := acctest.Nomad(t).Variables().Delete(path, &api.WriteOptions{Namespace: namespace}); err != nil {
		t.Logf("deleting Variable %s: %v", path, err)
	}
}
