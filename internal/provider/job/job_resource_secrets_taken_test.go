package job

import (
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

func secretJobConfig(name, extra string) string {
	return fmt.Sprintf(`
%s
resource "berth_job" "t" {
  variables_wo         = { password = "berth-wrote-this" }
  variables_wo_version = 1
  wait_for_healthy     = false
  jobspec = <<-EOT
    job %q {
      group "g" {
        %s
      }
    }
  EOT
}
`, extra, name, sleepTask("app", 16, ""))
}

// sameVariable checks that the Variable at path is exactly what before was:
// same items, same modify index (nobody wrote it).
func sameVariable(t *testing.T, path string, before func() *api.Variable) resource.TestCheckFunc {
	return func(*terraform.State) error {
		v, _, err := acctest.Nomad(t).Variables().Read(path, nil)
		want := before()
		if err != nil || want == nil {
			return fmt.Errorf("reading Variable %s: %v (before: %v)", path, err, want != nil)
		}
		if v.ModifyIndex != want.ModifyIndex || !maps.Equal(map[string]string(v.Items), map[string]string(want.Items)) {
			return fmt.Errorf("Variable %s changed: modify index %d -> %d, items equal %t", path, want.ModifyIndex,
				v.ModifyIndex, maps.Equal(map[string]string(v.Items), map[string]string(want.Items)))
		}
		return nil
	}
}

func noJob(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if j, _, err := acctest.Nomad(t).Jobs().Info(name, nil); err == nil && j != nil {
			return fmt.Errorf("job %s was registered", name)
		}
		return nil
	}
}

// TestAccJobSecret_variableHeldByOperator: a Variable made by hand at the
// job's path refuses the create at the attribute, before the job is
// registered, and stays as it was.
func TestAccJobSecret_variableHeldByOperator(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-jobtaken-" + acctest.RandomHex(3)
	varPath := workflow.JobVariablePath(name)
	c := acctest.Nomad(t)
	var before *api.Variable
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{{
			PreConfig: func() {
				v, _, err := c.Variables().Create(&api.Variable{Path: varPath, Items: api.VariableItems{"owner": "operator"}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				before = v
				t.Cleanup(func() { _, _ = c.Variables().Delete(varPath, nil) })
			},
			Config:      secretJobConfig(name, ""),
			ExpectError: regexp.MustCompile(`Secrets Variable held by someone else`),
		}, {
			// Nothing to apply: the checks run on what the refused apply left.
			Config: `provider "berth" {}`,
			Check:  resource.ComposeTestCheckFunc(sameVariable(t, varPath, func() *api.Variable { return before }), noJob(t, name)),
		}},
	})
}

// TestAccJobSecret_variableHeldByBerthVariable: the same when a
// berth_variable holds the path; the berth_variable is unchanged and its
// own destroy still succeeds (its check-and-set index is intact).
func TestAccJobSecret_variableHeldByBerthVariable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-jobtakenv-" + acctest.RandomHex(3)
	varPath := workflow.JobVariablePath(name)
	c := acctest.Nomad(t)
	variable := fmt.Sprintf(`resource "berth_variable" "held" {
  path  = %q
  items = { owner = "berth_variable" }
}`, varPath)
	read := func() *api.Variable {
		v, _, _ := c.Variables().Read(varPath, nil)
		return v
	}
	var before *api.Variable
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{Config: variable, Check: func(*terraform.State) error { before = read(); return nil }},
			{
				Config:      variable + secretJobConfig(name, ""),
				ExpectError: regexp.MustCompile(`Secrets Variable held by someone else`),
			},
			{
				Config: variable,
				Check:  resource.ComposeTestCheckFunc(sameVariable(t, varPath, func() *api.Variable { return before }), noJob(t, name)),
			},
		},
	})
}

// TestAccJobSecret_destroyLeavesOthersVariable: berth_job writes its
// Variable; an operator then rewrites it through the API; the destroy
// removes the job and leaves the operator's Variable as it is.
func TestAccJobSecret_destroyLeavesOthersVariable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-jobleave-" + acctest.RandomHex(3)
	varPath := workflow.JobVariablePath(name)
	c := acctest.Nomad(t)
	t.Cleanup(func() {
		_, _, _ = c.Jobs().Deregister(name, true, nil)
		_, _ = c.Variables().Delete(varPath, nil)
	})
	var before *api.Variable
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		Steps: []resource.TestStep{
			{Config: secretJobConfig(name, "")},
			{
				PreConfig: func() {
					v, _, err := c.Variables().Create(&api.Variable{Path: varPath, Items: api.VariableItems{"owner": "operator"}}, nil)
					if err != nil {
						t.Fatal(err)
					}
					before = v
				},
				Config: `provider "berth" {}`,
				Check: resource.ComposeTestCheckFunc(sameVariable(t, varPath, func() *api.Variable { return before }),
					func(*terraform.State) error {
						if j, _, err := c.Jobs().Info(name, nil); err == nil && j != nil && (j.Stop == nil || !*j.Stop) {
							return fmt.Errorf("job %s is still running after the destroy", name)
						}
						return nil
					}),
			},
		},
	})
}
