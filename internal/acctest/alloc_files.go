package acctest

import (
	"fmt"
	"io"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// RunningAlloc is the job's newest running allocation.
func RunningAlloc(c *api.Client, job string) (*api.Allocation, error) {
	stubs, _, err := c.Jobs().Allocations(job, false, nil)
	if err != nil {
		return nil, err
	}
	var newest *api.AllocationListStub
	for _, a := range stubs {
		if a.ClientStatus == "running" && a.DesiredStatus == "run" && (newest == nil || a.CreateIndex > newest.CreateIndex) {
			newest = a
		}
	}
	if newest == nil {
		return nil, fmt.Errorf("job %q has no running allocation", job)
	}
	alloc, _, err := c.Allocations().Info(newest.ID, nil)
	return alloc, err
}

// AllocFile reads a file of the job's running allocation through Nomad's
// client filesystem API (/v1/client/fs/cat), relative to the allocation
// directory, e.g. "app/local/app.conf".
func AllocFile(c *api.Client, job, file string) (string, error) {
	alloc, err := RunningAlloc(c, job)
	if err != nil {
		return "", err
	}
	rc, err := c.AllocFS().Cat(alloc, file, nil)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// SetJobVariable writes the job's Nomad Variable, which its tasks may read
// without a policy; the test deletes it at the end.
func SetJobVariable(t *testing.T, job string, items map[string]string) {
	t.Helper()
	c := Nomad(t)
	if _, _, err := c.Variables().Update(&api.Variable{Path: "nomad/jobs/" + job, Items: items}, nil); err != nil {
		t.Fatalf("writing variable nomad/jobs/%s: %v", job, err)
	}
	t.Cleanup(func() { _, _ = c.Variables().Delete("nomad/jobs/"+job, nil) })
}
