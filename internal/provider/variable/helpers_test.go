package variable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/nomad/api"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
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
