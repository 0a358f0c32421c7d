package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccScalingPolicyDataSource_asNomadSays reads by ID the scaling
// policy of a job with a scaling block and compares every attribute with
// what Nomad's API says of the policy; an ID Nomad lacks is one error
// naming it.
func TestAccScalingPolicyDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	job := registerDeployedJob(t)
	nomad := acctest.Nomad(t)
	stubs, _, err := nomad.Scaling().ListPolicies(&api.QueryOptions{Params: map[string]string{"job": job}})
	if err != nil {
		t.Fatal(err)
	}
	if len(stubs) != 1 {
		t.Fatalf("Nomad has %d scaling policies for %s, want 1", len(stubs), job)
	}
	id := stubs[0].ID
	const ds = "data.berth_scaling_policy.p"
	missing := "00000000-0000-0000-0000-000000000000"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
data "berth_scaling_policy" "p" {
  id = %q
}
`, id),
				Check: func(s *terraform.State) error {
					p, _, err := nomad.Scaling().GetPolicy(id, nil)
					if err != nil {
						return err
					}
					attrs := s.RootModule().Resources[ds].Primary.Attributes
					var got map[string]any
					if err := json.Unmarshal([]byte(attrs["policy"]), &got); err != nil {
						return fmt.Errorf("policy %q is not JSON: %w", attrs["policy"], err)
					}
					// Nomad's policy block, through JSON as the data source has it.
					raw, _ := json.Marshal(p.Policy)
					var want map[string]any
					_ = json.Unmarshal(raw, &want)
					if !reflect.DeepEqual(got, want) || len(want) == 0 {
						return fmt.Errorf("policy = %v, Nomad says %v", got, want)
					}
					checks := []resource.TestCheckFunc{
						resource.TestCheckResourceAttr(ds, "enabled", fmt.Sprint(*p.Enabled)),
						resource.TestCheckResourceAttr(ds, "type", p.Type),
						resource.TestCheckResourceAttr(ds, "min", fmt.Sprint(*p.Min)),
						resource.TestCheckResourceAttr(ds, "max", fmt.Sprint(*p.Max)),
						resource.TestCheckResourceAttr(ds, "target.%", fmt.Sprint(len(p.Target))),
					}
					for k, v := range p.Target {
						checks = append(checks, resource.TestCheckResourceAttr(ds, "target."+k, v))
					}
					return resource.ComposeTestCheckFunc(checks...)(s)
				},
			},
			{
				Config: fmt.Sprintf(`
data "berth_scaling_policy" "missing" {
  id = %q
}
`, missing),
				ExpectError: regexp.MustCompile(`Scaling policy not found[\s\S]*` + missing),
			},
		},
	})
}
