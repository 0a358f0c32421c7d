package nomadclient

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// JobFilter selects jobs for a listing. Empty fields select everything;
// Namespace "*" is every namespace the token can read.
type JobFilter struct {
	Namespace string
	Prefix    string // job ID prefix
	NodePool  string
	Meta      map[string]string // job meta must hold every pair
}

// JobSummary is one job of a listing.
type JobSummary struct {
	Namespace, ID, Type string
	// Kind is the job's berth.kind meta: "instance", "lease",
	// "node-reservation-hold", or "" for a job berth did not make.
	Kind string
}

// ListJobs lists the jobs f selects, sorted by namespace and ID, in one
// request: Nomad applies the node pool and meta conditions itself (its
// server-side job stubs carry the node pool).
func (c *Client) ListJobs(ctx context.Context, f JobFilter) ([]JobSummary, error) {
	var conds []string
	if f.NodePool != "" {
		conds = append(conds, fmt.Sprintf("NodePool == %q", f.NodePool))
	}
	for _, k := range slices.Sorted(maps.Keys(f.Meta)) {
		conds = append(conds, fmt.Sprintf("Meta[%q] == %q", k, f.Meta[k]))
	}
	q := &api.QueryOptions{Namespace: f.Namespace, Prefix: f.Prefix, Filter: strings.Join(conds, " and ")}
	stubs, err := readRetry(ctx, c, "list jobs", func(ctx context.Context) ([]*api.JobListStub, error) {
		out, _, err := c.api.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}}, c.query(ctx, q))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	out := make([]JobSummary, 0, len(stubs))
	for _, s := range stubs {
		out = append(out, JobSummary{Namespace: s.Namespace, ID: s.ID, Type: s.Type, Kind: s.Meta[instance.MetaKind]})
	}
	slices.SortFunc(out, func(a, b JobSummary) int {
		return strings.Compare(a.Namespace+"/"+a.ID, b.Namespace+"/"+b.ID)
	})
	return out, nil
}
