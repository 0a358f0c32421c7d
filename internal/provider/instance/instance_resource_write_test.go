package instance

import (
	"github.com/berthhq/terraform-provider-berth/internal/acctest"

	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// Errors from a register or scale reach the user as what happened and
// what to do, never as a bare "Unexpected response code: 400".
func TestAddWriteError(t *testing.T) {
	t.Parallel()
	answers := map[string]struct {
		status int
		body   string
	}{
		"moved":   {500, "Enforcing job modify index 42: job exists with conflicting job modify index: 45"},
		"blocked": {400, "job scaling blocked due to active deployment"},
		"policy":  {400, "group count was greater than scaling policy maximum: 9 > 5"},
		"invalid": {400, "1 error occurred:\n\t* Task group app validation failed"},
	}
	srv := httptest.NewServer(acctest.AnswerVersion(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		job := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/job/"), "/scale")
		a := answers[job]
		http.Error(w, a.body, a.status)
	})))
	defer srv.Close()
	c, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for job, want := range map[string][]string{
		"moved":   {"Job changed in Nomad since the last refresh", "conflicting job modify index: 45", "Run terraform apply again"},
		"blocked": {"Could not change the job's count", "deployment is in progress", "nomad job status -namespace=default blocked"},
		"policy":  {"Nomad refused the change", "scaling policy maximum: 9 > 5", "within the job's scaling policy"},
		"invalid": {"Nomad refused the change", "Task group app validation failed", "Fix the setting Nomad names"},
	} {
		_, err := c.ScaleJob(t.Context(), "default", job, "app", 9, "", 42)
		if err == nil {
			t.Fatalf("%s: no error", job)
		}
		var diags diag.Diagnostics
		addWriteError(&diags, instance.Spec{Name: job, Namespace: "default"}, err)
		if len(diags) != 1 {
			t.Fatalf("%s: %d diagnostics, want 1: %v", job, len(diags), diags)
		}
		text := diags[0].Summary() + "\n" + diags[0].Detail()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: diagnostic lacks %q:\n%s", job, w, text)
			}
		}
		if strings.Contains(text, "Unexpected response code") {
			t.Errorf("%s: diagnostic shows the raw HTTP status:\n%s", job, text)
		}
	}
}

// When Nomad cannot be read after a write, state still gets known values:
// the index the write returned, nulls for what only a read tells, and a
// warning (never unknown values, which Terraform rejects).
func TestRecordWritten_readFailsAfterWrite(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(acctest.AnswerVersion(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "permission denied", http.StatusForbidden)
	})))
	defer srv.Close()
	c, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := &instanceResource{ResourceBase: shared.ResourceBase{Data: &shared.ProviderData{Nomad: c}}}
	m := instanceModel{
		Name: types.StringValue("web"), Namespace: types.StringValue("default"), ID: types.StringUnknown(),
		Replicas: types.Int64Unknown(), NodePool: types.StringUnknown(), Datacenters: types.ListUnknown(types.StringType),
		JobVersion: types.Int64Unknown(), JobModifyIndex: types.Int64Unknown(),
		DeploymentID: types.StringUnknown(), DeploymentStatus: types.StringUnknown(),
	}
	var diags diag.Diagnostics
	r.recordWritten(t.Context(), &m, &nomadclient.RegisterResult{JobModifyIndex: 77}, nil, &diags)
	if diags.HasError() || diags.WarningsCount() != 1 || diags[0].Summary() != "Could not read the job back" {
		t.Fatalf("diagnostics = %v, want one warning", diags)
	}
	if m.JobModifyIndex.ValueInt64() != 77 || m.ID.ValueString() != "default/web" {
		t.Errorf("job_modify_index %v, id %v; want 77 and default/web", m.JobModifyIndex, m.ID)
	}
	for name, v := range map[string]attr.Value{
		"replicas": m.Replicas, "node_pool": m.NodePool, "datacenters": m.Datacenters, "job_version": m.JobVersion,
		"deployment_id": m.DeploymentID, "deployment_status": m.DeploymentStatus,
	} {
		if v.IsUnknown() {
			t.Errorf("%s is still unknown", name)
		}
	}
}
