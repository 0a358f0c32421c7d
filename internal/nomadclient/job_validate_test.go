package nomadclient

import (
	"slices"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestValidationProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		resp api.JobValidateResponse
		want []string
	}{
		{"valid", api.JobValidateResponse{DriverConfigValidated: true}, nil},
		{"list", api.JobValidateResponse{ValidationErrors: []string{"a", " ", "b\n"}, Error: "2 errors occurred"}, []string{"a", "b"}},
		{"error only", api.JobValidateResponse{Error: "job is missing"}, []string{"job is missing"}},
		{"warnings are not problems", api.JobValidateResponse{Warnings: "deprecated"}, nil},
	} {
		if got := validationProblems(&c.resp); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
