package acl

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// refusal is one bad configuration and the one error berth must give for
// it, at validate or plan, before anything is written.
type refusal struct {
	name, config string
	path         string // attribute path, as the framework prints it
	summary      string
	detail       []string // each must be in the error's detail
}

// requireRefusedAtPlan applies c.config and requires exactly one error
// from the provider, from validate or plan (never apply), at c.path, with
// c.summary and every one of c.detail; nothing may have been written
// (gone reports whether that holds).
func requireRefusedAtPlan(t *testing.T, c refusal, gone func() error) {
	t.Helper()
	rec := &acctest.DiagRecorder{}
	var cliErr error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.RecordingFactories(rec),
		ErrorCheck: func(err error) error {
			cliErr = err
			return nil
		},
		Steps: []resource.TestStep{{
			Config: c.config,
			Check: func(*terraform.State) error {
				return errorf("the bad configuration was applied")
			},
		}},
	})
	if err := gone(); err != nil {
		t.Error(err)
	}
	if cliErr == nil {
		t.Fatal("terraform reported no error")
	}
	if n := len(regexp.MustCompile(`(?m)^Error: `).FindAllString(cliErr.Error(), -1)); n != 1 {
		t.Fatalf("terraform reported %d errors, want 1:\n%v", n, cliErr)
	}
	errs := rec.Errors()
	if len(errs) != 1 {
		t.Fatalf("the provider returned %d errors, want 1: %+v", len(errs), errs)
	}
	d := errs[0]
	if d.Rpc == "ApplyResourceChange" || d.Path != c.path || d.Summary != c.summary {
		t.Fatalf("error %+v; want %q at %q from validate or plan", d, c.summary, c.path)
	}
	detail := strings.Join(strings.Fields(d.Detail), " ")
	for _, want := range c.detail {
		if !strings.Contains(detail, want) {
			t.Errorf("the detail does not say %q: %s", want, detail)
		}
	}
}

type errorf string

func (e errorf) Error() string { return string(e) }

// TestAccACLPolicy_badInputRefusedAtPlan: rules Nomad's parser refuses and
// job_acl combinations Nomad refuses give one error each, at the attribute,
// in words, and no policy is written.
func TestAccACLPolicy_badInputRefusedAtPlan(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	for _, c := range []refusal{
		{name: "unknown policy", config: `namespace "default" { policy = "reed" }` + "\n", path: "rules",
			summary: "Invalid ACL policy rules", detail: []string{"these rules would be refused by Nomad", `namespace "default": policy "reed" is not one of deny, read, write, scale`}},
		{name: "unknown capability", config: `namespace "default" { capabilities = ["fly"] }` + "\n", path: "rules",
			summary: "Invalid ACL policy rules", detail: []string{`namespace "default": capability "fly" is not one of`}},
		{name: "not HCL", config: `namespace "default" {` + "\n", path: "rules",
			summary: "Invalid ACL policy rules", detail: []string{"the rules do not parse"}},
		{name: "group without job", config: readDefaultRules, path: "job_acl.group",
			summary: "Invalid job_acl", detail: []string{"a group needs job_id"}},
		{name: "task without group", config: readDefaultRules, path: "job_acl.task",
			summary: "Invalid job_acl", detail: []string{"a task needs group"}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			name := "berth-acc-policy-bad-" + acctest.RandomHex(3)
			jobACL := ""
			switch c.path {
			case "job_acl.group":
				jobACL = `{ namespace = "default", group = "app" }`
			case "job_acl.task":
				jobACL = `{ namespace = "default", job_id = "web", task = "server" }`
			}
			c.config = aclPolicyConfig(name, "bad", c.config, jobACL)
			requireRefusedAtPlan(t, c, func() error { return checkACLPolicyGone(t, name)(nil) })
		})
	}
}
