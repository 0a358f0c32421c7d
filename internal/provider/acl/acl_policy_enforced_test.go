package acl

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLPolicy_enforced: Nomad enforces a berth_acl_policy granted
// through a berth_acl_role: a token of the role (made through Nomad's API)
// may list the jobs of the namespace the rules name and is refused
// registering one.
func TestAccACLPolicy_enforced(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-enforced-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: aclRoleConfig(prefix, prefix, "readers", `[berth_acl_policy.read.name]`),
			Check: func(s *terraform.State) error {
				nomad := acctest.Nomad(t)
				roleName := s.RootModule().Resources[aclRoleAddr].Primary.Attributes["name"]
				tok, _, err := nomad.ACLTokens().Create(&api.ACLToken{Name: prefix, Type: "client",
					Roles: []*api.ACLTokenRoleLink{{Name: roleName}}}, nil)
				if err != nil {
					return fmt.Errorf("creating a token of role %q: %v", roleName, err)
				}
				defer func() { _, _ = nomad.ACLTokens().Delete(tok.AccessorID, nil) }()
				cfg := api.DefaultConfig()
				cfg.Address, cfg.SecretID = os.Getenv("NOMAD_ADDR"), tok.SecretID
				reader, err := api.NewClient(cfg)
				if err != nil {
					return err
				}
				if _, _, err := reader.Jobs().List(&api.QueryOptions{Namespace: "default"}); err != nil {
					return fmt.Errorf("the role's token cannot list jobs in default: %v", err)
				}
				job := api.NewBatchJob(prefix, prefix, "global", 50)
				job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "raw_exec")))
				_, _, err = reader.Jobs().Register(job, nil)
				if err == nil {
					_, _, _ = nomad.Jobs().Deregister(prefix, true, nil)
					return fmt.Errorf("the role's token registered a job; the policy grants read only")
				}
				if !strings.Contains(err.Error(), "403") {
					return fmt.Errorf("registering a job with the role's token: %v; want 403 Permission denied", err)
				}
				return nil
			},
		}},
	})
}
