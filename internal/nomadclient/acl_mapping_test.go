package nomadclient

import (
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

func TestPolicyRoundTrip(t *testing.T) {
	p := aclpolicy.Policy{Name: "n", Description: "d", Rules: "r", JobACL: &aclpolicy.JobACL{Namespace: "ns"}}
	got := policyFromAPI(policyToAPI(p))
	if got.Name != p.Name || got.Description != p.Description || got.Rules != p.Rules || *got.JobACL != *p.JobACL {
		t.Fatalf("round trip: %+v -> %+v", p, got)
	}
	if got := policyFromAPI(&api.ACLPolicy{Name: "n", JobACL: &api.JobACL{}}); got.JobACL != nil {
		t.Fatalf("an empty job_acl read as %+v, want none", got.JobACL)
	}
}
