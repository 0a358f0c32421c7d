package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// maxCheckOutput bounds how much of a check's output a failure quotes.
const maxCheckOutput = 200

// failingChecks names, per allocation that runs but is not healthy, the
// Nomad service checks that are not passing, with their last output, so a
// failed deployment says which check kept it from becoming healthy. The
// allocation's client answers (Nomad forwards the request); an allocation
// whose checks cannot be read adds nothing. Consul checks are Consul's and
// are not listed.
func (c *Client) failingChecks(ctx context.Context, namespace string, allocs []*api.AllocationListStub) []string {
	var out []string
	for _, a := range allocs {
		healthy := a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy
		if healthy || a.ClientStatus != api.AllocClientStatusRunning {
			continue
		}
		checks, err := readRetry(ctx, c, "reading the checks of allocation "+a.ID, func(ctx context.Context) (api.AllocCheckStatuses, error) {
			return c.api.Allocations().Checks(a.ID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		})
		if err != nil {
			continue
		}
		out = append(out, describeFailingChecks(a, checks)...)
	}
	return out
}

// describeFailingChecks formats the checks of a that are not passing,
// ordered by service and check name.
func describeFailingChecks(a *api.AllocationListStub, checks api.AllocCheckStatuses) []string {
	var failing []api.AllocCheckStatus
	for _, st := range checks {
		if st.Status != "success" {
			failing = append(failing, st)
		}
	}
	sort.Slice(failing, func(i, j int) bool {
		if failing[i].Service != failing[j].Service {
			return failing[i].Service < failing[j].Service
		}
		return failing[i].Check < failing[j].Check
	})
	out := make([]string, 0, len(failing))
	for _, st := range failing {
		output := strings.Join(strings.Fields(st.Output), " ")
		if len(output) > maxCheckOutput {
			output = output[:maxCheckOutput] + "..."
		}
		line := fmt.Sprintf("allocation %s on node %s: check %q of service %q (task %q) is %s", idPrefix(a.ID), nodeLabel(a),
			st.Check, st.Service, st.Task, st.Status)
		if st.StatusCode != 0 {
			line += fmt.Sprintf(" (HTTP %d)", st.StatusCode)
		}
		if output != "" {
			line += ": " + output
		}
		out = append(out, line)
	}
	return out
}
