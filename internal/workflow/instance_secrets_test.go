package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// berth_instance's secrets Variables are check-and-set like berth_job's:
// a path new to the instance is created at cas=0, so a Variable someone
// else holds there refuses the create before anything is registered and
// is not deleted by the undo; a rotation and a delete go at the index
// berth recorded; a Variable written since by someone else is left on
// destroy, as a warning, and dropped from the record.
func TestInstanceSecretsCheckAndSet(t *testing.T) {
	taken := &nomadclient.VariableConflictError{Ref: variable.Ref{Namespace: "default", Path: "nomad/jobs/web/app/web"}}

	f := fakeInstanceNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"put-secret web": taken}}
	out, err := NewInstances(&f, "berth").Create(context.Background(), InstanceWrite{Want: webSpec(2, 1, 1), Secrets: bothSecrets})
	var secretErr *SecretError
	if !errors.As(err, &secretErr) || !secretErr.Taken() || secretErr.Service != "web" {
		t.Fatalf("create over a Variable someone holds = %v, want a taken SecretError of web", err)
	}
	if got := strings.Join(f.cas, ","); got != "put-secret side 0,put-secret web 0,delete-secret side 100" {
		t.Errorf("cas = %s; want both created at 0 and only side (berth's) deleted, at the index written", got)
	}
	if slices := strings.Join(f.steps, ","); strings.Contains(slices, "register") || strings.Contains(slices, "delete-secret web") {
		t.Errorf("steps %v: registered, or deleted the Variable berth did not write", f.steps)
	}

	had := webSpec(2, 1, 1)
	f = fakeInstanceNomad{fakeLedger: &fakeLedger{}, job: nomadclient.InstanceJob(had, 2, 7)}
	in := InstanceWrite{Want: webSpec(2, 1, 2), Had: &had, Secrets: bothSecrets, Index: 7,
		SecretIndexes: map[string]uint64{"nomad/jobs/web/app/side": 40, "nomad/jobs/web/app/web": 41}}
	out, err = NewInstances(&f, "berth").Update(context.Background(), in)
	if err != nil || strings.Join(f.cas, ",") != "put-secret web 41" {
		t.Fatalf("rotation of web: err %v, cas %v; want web rewritten at 41", err, f.cas)
	}
	if out.SecretIndexes["nomad/jobs/web/app/web"] != 100 || out.SecretIndexes["nomad/jobs/web/app/side"] != 40 {
		t.Errorf("recorded %v; want web at 100 and side kept at 40", out.SecretIndexes)
	}

	f = fakeInstanceNomad{fakeLedger: &fakeLedger{}, fail: map[string]error{"delete-secret web": taken}}
	out, err = NewInstances(&f, "berth").Delete(context.Background(), InstanceDelete{Name: "web", Purge: true, Had: &had,
		SecretIndexes: map[string]uint64{"nomad/jobs/web/app/side": 40}})
	var dropErr *SecretDeleteError
	if err != nil || len(out.Problems) != 1 || !errors.As(out.Problems[0], &dropErr) || !dropErr.Taken || dropErr.Fatal {
		t.Fatalf("destroy over a Variable written since: err %v, problems %v; want it left with a warning", err, out.Problems)
	}
	if got := strings.Join(f.cas, ","); got != "delete-secret side 40,delete-secret web "+
		"18446744073709551615" || len(out.SecretIndexes) != 0 {
		t.Errorf("cas %s, left recorded %v; want side at 40, web (unrecorded) at the index Nomad has", got, out.SecretIndexes)
	}
}
