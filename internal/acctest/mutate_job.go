package acctest

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// MutateJob changes the job in Nomad behind Terraform's back.
func MutateJob(t *testing.T, name string, change func(*api.Job)) func() {
	return func() {
		c := Nomad(t)
		job, _, err := c.Jobs().Info(name, nil)
		if err != nil {
			t.Fatalf("reading job %q: %v", name, err)
		}
		change(job)
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatalf("changing job %q out of band: %v", name, err)
		}
	}
}
