package nomadclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// The secrets reach Nomad's Variable in the request body, and nowhere in
// the log (which names the request) or in an error, even when Nomad's
// answer echoes them.
func TestPutSecretEnvLogsNoValues(t *testing.T) {
	const path = "nomad/jobs/web/app/app"
	const secret = "hunter2-very-secret"
	f := newFakeNomad(t)
	// Nomad answers with the Variable, items included.
	f.handle("PUT /v1/var/"+path, replyJSON(api.Variable{Path: path, Items: api.VariableItems{"TOKEN": secret}}))
	c := f.client()
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	if err := c.PutSecretEnv(ctx, "team", path, map[string]string{"TOKEN": secret}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests("/v1/var/" + path)
	if len(reqs) != 1 || reqs[0].Query.Get("namespace") != "team" {
		t.Fatalf("requests = %+v, want one PUT in namespace team", reqs)
	}
	var sent api.Variable
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil || sent.Items["TOKEN"] != secret {
		t.Errorf("the request does not carry the secret as the TOKEN item (%v)", err)
	}
	if !strings.Contains(buf.String(), "/v1/var/"+path) {
		t.Errorf("the request log does not name the write:\n%s", buf.String())
	}
	if strings.Contains(buf.String(), secret) {
		t.Errorf("the log shows the secret:\n%s", buf.String())
	}

	// A refusal: the error names the path, not the values.
	f.handle("PUT /v1/var/"+path, replyRaw(http.StatusBadRequest, "variables are limited to 64KiB in total size"))
	err := c.PutSecretEnv(ctx, "team", path, map[string]string{"TOKEN": secret})
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), secret) {
		t.Errorf("error = %v; want one naming the path and not the secret", err)
	}
}

func TestDeleteSecretEnvGoneIsNoError(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/var/nomad/jobs/web/app/app", replyRaw(http.StatusNotFound, "variable not found"))
	if err := f.client().DeleteSecretEnv(context.Background(), "default", "nomad/jobs/web/app/app"); err != nil {
		t.Errorf("deleting a Variable already gone: %v", err)
	}
}

func TestSecretEnvPathsUnder(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{{Path: "nomad/jobs/web/app/app"}, {Path: "nomad/jobs/web/app/worker"}}))
	got, err := f.client().SecretEnvPathsUnder(context.Background(), "default", "nomad/jobs/web/app/")
	if err != nil {
		t.Fatal(err)
	}
	if !got["nomad/jobs/web/app/app"] || !got["nomad/jobs/web/app/worker"] || len(got) != 2 {
		t.Errorf("paths = %v", got)
	}
	if q := f.requests("/v1/vars")[0].Query; q.Get("prefix") != "nomad/jobs/web/app/" {
		t.Errorf("query = %v, want the prefix", q)
	}
}
