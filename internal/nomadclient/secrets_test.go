package nomadclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	if _, err := c.PutSecretEnv(ctx, "team", path, map[string]string{"TOKEN": secret}, 0); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests("/v1/var/" + path)
	if len(reqs) != 1 || reqs[0].Query.Get("namespace") != "team" || reqs[0].Query.Get("cas") != "0" {
		t.Fatalf("requests = %+v, want one PUT in namespace team with cas=0", reqs)
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
	_, err := c.PutSecretEnv(ctx, "team", path, map[string]string{"TOKEN": secret}, 0)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), secret) {
		t.Errorf("error = %v; want one naming the path and not the secret", err)
	}
}

func TestDeleteSecretEnvGoneIsNoError(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/var/nomad/jobs/web/app/app", replyRaw(http.StatusNotFound, "variable not found"))
	if err := f.client().DeleteSecretEnv(context.Background(), "default", "nomad/jobs/web/app/app", 3); err != nil {
		t.Errorf("deleting a Variable already gone: %v", err)
	}
}

// A secrets Variable someone else holds is never overwritten nor deleted:
// a create is sent at cas=0, a rewrite and a delete at the index berth
// wrote, and Nomad's refusal comes back as a *VariableConflictError.
func TestSecretEnvCheckAndSet(t *testing.T) {
	const path = "nomad/jobs/web"
	f := newFakeNomad(t)
	taken := replyRaw(http.StatusConflict, `{"Namespace":"default","Path":"nomad/jobs/web","ModifyIndex":12,"Items":{"k":"theirs"}}`)
	f.handle("PUT /v1/var/"+path, taken)
	f.handle("DELETE /v1/var/"+path, taken)
	c := f.client()
	var conflict *VariableConflictError
	if _, err := c.PutSecretEnv(context.Background(), "default", path, map[string]string{"k": "mine"}, 0); !errors.As(err, &conflict) ||
		strings.Contains(err.Error(), "theirs") {
		t.Errorf("create over a Variable someone holds = %v, want a conflict naming no value", err)
	}
	if _, err := c.PutSecretEnv(context.Background(), "default", path, map[string]string{"k": "mine"}, 7); !errors.As(err, &conflict) {
		t.Errorf("rewrite of a Variable written since = %v, want a conflict", err)
	}
	if err := c.DeleteSecretEnv(context.Background(), "default", path, 7); !errors.As(err, &conflict) || conflict.Found.ModifyIndex != 12 {
		t.Errorf("delete of a Variable written since = %v, want a conflict finding 12", err)
	}
	var cas []string
	for _, r := range f.requests("/v1/var/" + path) {
		cas = append(cas, r.Query.Get("cas"))
	}
	if strings.Join(cas, ",") != "0,7,7" {
		t.Errorf("cas sent = %v, want 0,7,7", cas)
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

// berth's Variable deleted since it wrote it: the rewrite finds nothing
// (a conflict with no Variable) and creates it anew at cas=0.
func TestPutSecretEnvRecreatesWhatWasDeleted(t *testing.T) {
	const path = "nomad/jobs/web"
	f := newFakeNomad(t)
	f.handle("PUT /v1/var/"+path, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cas") == "7" {
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"ModifyIndex":0}`))
			return
		}
		_, _ = w.Write([]byte(`{"Namespace":"default","Path":"nomad/jobs/web","ModifyIndex":20}`))
	})
	got, err := f.client().PutSecretEnv(context.Background(), "default", path, map[string]string{"k": "v"}, 7)
	if err != nil || got != 20 {
		t.Fatalf("PutSecretEnv = (%d, %v), want 20", got, err)
	}
	var cas []string
	for _, r := range f.requests("/v1/var/" + path) {
		cas = append(cas, r.Query.Get("cas"))
	}
	if strings.Join(cas, ",") != "7,0" {
		t.Errorf("cas sent = %v, want 7 then 0", cas)
	}
}
