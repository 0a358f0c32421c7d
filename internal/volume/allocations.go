package volume

import (
	"fmt"
	"sort"
	"strings"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// LiveAllocations returns the allocations using the volume that may still
// run (allocstatus.Live), by name.
func (v *Volume) LiveAllocations() []Allocation {
	var out []Allocation
	for _, a := range v.Allocations {
		if allocstatus.Live(a.ClientStatus) {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LiveAllocationIDs is LiveAllocations as IDs (never nil).
func (v *Volume) LiveAllocationIDs() []string {
	ids := []string{}
	for _, a := range v.LiveAllocations() {
		ids = append(ids, a.ID)
	}
	return ids
}

// DescribeAllocations names allocations and their jobs for an error
// message, e.g. why a volume cannot be deleted.
func DescribeAllocations(allocs []Allocation) string {
	jobs := map[string]bool{}
	var parts []string
	for _, a := range allocs {
		jobs[a.JobID] = true
		parts = append(parts, fmt.Sprintf("allocation %s (%s, job %q, %s)", a.ID, a.Name, a.JobID, a.ClientStatus))
	}
	names := make([]string, 0, len(jobs))
	for j := range jobs {
		names = append(names, fmt.Sprintf("%q", j))
	}
	sort.Strings(names)
	return fmt.Sprintf("%d allocation(s) of job(s) %s: %s", len(allocs), strings.Join(names, ", "), strings.Join(parts, "; "))
}
