package job_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// requireOneError runs config and requires exactly one error, from the
// provider, at path, with summary and every one of detail in its detail.
func requireOneError(t *testing.T, config, path, summary string, detail ...string) {
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
			Config: config,
			Check:  func(*terraform.State) error { return fmt.Errorf("the bad configuration was read") },
		}},
	})
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
	if d := errs[0]; d.Path != path || d.Summary != summary {
		t.Fatalf("error %+v; want %q at %q", d, summary, path)
	}
	text := strings.Join(strings.Fields(errs[0].Detail), " ")
	for _, want := range detail {
		if !strings.Contains(text, want) {
			t.Errorf("the detail does not say %q: %s", want, text)
		}
	}
}

// clusterParse is what Nomad's POST /v1/jobs/parse answers for src with
// the variables file vars, decoded as a generic tree: the oracle the data
// source's json is compared with.
func clusterParse(t *testing.T, src, vars string, canonicalize bool) any {
	t.Helper()
	body := map[string]any{"JobHCL": src, "Variables": vars, "Canonicalize": canonicalize}
	var raw json.RawMessage
	if _, err := acctest.Nomad(t).Raw().Write("/v1/jobs/parse", body, &raw, nil); err != nil {
		t.Fatalf("asking Nomad to parse the jobspec: %v", err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// parsedJobspec is a job with a string and a number variable, and a group
// that leaves count and the restart policy to Nomad's defaults.
const parsedJobspec = `
variable "image" {
  type = string
}

variable "replicas" {
  type    = number
  default = 1
}

job "berth-acc-jobspec" {
  datacenters = ["dc1"]
  meta = {
    image = var.image
  }
  group "web" {
    count = var.replicas
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = [var.image]
      }
    }
  }
  group "defaults" {
    task "idle" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
`

// TestAccJobspecDataSource_matchesClusterParse: berth_jobspec's json is
// what Nomad's own parse API answers for the jobspec and its variables
// (a string and a number), with and without canonicalize; the
// canonicalized job holds Nomad's defaults (a group's count of 1, a
// restart policy) that the plain one does not; id is the job's ID.
func TestAccJobspecDataSource_matchesClusterParse(t *testing.T) {
	acctest.PreCheck(t)
	vars := "image = \"web:1\"\nreplicas = 3\n"
	plain := clusterParse(t, parsedJobspec, vars, false)
	canonical := clusterParse(t, parsedJobspec, vars, true)
	group := func(job any, i int) map[string]any {
		return job.(map[string]any)["TaskGroups"].([]any)[i].(map[string]any)
	}
	if group(plain, 1)["RestartPolicy"] != nil || group(canonical, 1)["RestartPolicy"] == nil {
		t.Fatalf("Nomad's parse does not fill in defaults only when asked to: plain %v, canonical %v",
			group(plain, 1)["RestartPolicy"], group(canonical, 1)["RestartPolicy"])
	}
	matches := func(addr string, want any) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			rs, ok := s.RootModule().Resources[addr]
			if !ok {
				return fmt.Errorf("%s not in state", addr)
			}
			if d := sameJSON(rs.Primary.Attributes["json"], want); d != "" {
				return fmt.Errorf("%s.json is not what Nomad's parse API answers: %s", addr, d)
			}
			return nil
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
locals {
  jobspec = <<-EOT
%s
  EOT
}

data "berth_jobspec" "plain" {
  hcl       = local.jobspec
  variables = { image = "web:1", replicas = "3" }
}

data "berth_jobspec" "canonical" {
  hcl          = local.jobspec
  variables    = { image = "web:1", replicas = "3" }
  canonicalize = true
}
`, parsedJobspec),
			Check: resource.ComposeTestCheckFunc(
				matches("data.berth_jobspec.plain", plain),
				matches("data.berth_jobspec.canonical", canonical),
				resource.TestCheckResourceAttr("data.berth_jobspec.plain", "id", "berth-acc-jobspec"),
			),
		}},
	})
}

// TestAccJobspecDataSource_badInput: a jobspec berth's own checks refuse
// (HCL syntax, a variable it does not declare, one it requires left out)
// and one only the cluster's parser refuses (an unknown block) are each one
// error at hcl, naming the line where there is one.
func TestAccJobspecDataSource_badInput(t *testing.T) {
	acctest.PreCheck(t)
	config := func(hcl, vars string) string {
		return fmt.Sprintf(`
data "berth_jobspec" "t" {
  hcl = <<-EOT
%s
  EOT
  %s
}
`, hcl, vars)
	}
	for _, c := range []struct {
		name, hcl, vars string
		detail          []string
	}{
		{name: "syntax", hcl: "job \"x\" {\n  group \"g\" {\n}\n", detail: []string{"line "}},
		{name: "unknown block", hcl: "job \"x\" {\n  grup \"g\" {\n  }\n}\n",
			detail: []string{"line 2", "grup", "cluster reads them the same way"}},
		{name: "undeclared variable", hcl: "job \"x\" {\n  group \"g\" {\n  }\n}\n", vars: `variables = { nope = "1" }`,
			detail: []string{`"nope"`, "declares no variable block"}},
		{name: "missing variable", hcl: "variable \"image\" {}\njob \"x\" {\n  group \"g\" {\n  }\n}\n",
			detail: []string{"line 1", `"image" has no default`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireOneError(t, config(c.hcl, c.vars), "hcl", "Invalid jobspec", c.detail...)
		})
	}
}
