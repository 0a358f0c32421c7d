package instance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccInstance_importRefusesNewerFieldNewerNomad: a job registered by
// hand with a task secret block (Nomad 1.11) is refused by a
// berth_instance import, naming the block, since berth_instance does not
// manage it and an import must drop nothing; the job in Nomad keeps it.
func TestAccInstance_importRefusesNewerFieldNewerNomad(t *testing.T) {
	acctest.NeedNewerNomad(t)
	name := "berth-acc-inst-secret-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	src := fmt.Sprintf(`job %q {
  group "app" {
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      secret "creds" {
        provider = "nomad"
        path     = "berth/%s"
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}`, name, name)
	var parsed json.RawMessage
	if _, err := nomad.Raw().Write("/v1/jobs/parse", map[string]any{"JobHCL": src}, &parsed, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nomad.Raw().Write("/v1/jobs", map[string]any{"Job": parsed}, nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = nomad.Jobs().Deregister(name, true, nil) })
	cfg := sleeperConfig(name, 2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:        cfg,
			ResourceName:  acctest.InstanceAddr,
			ImportState:   true,
			ImportStateId: name,
			ExpectError:   regexp.MustCompile(`(?s)cannot be represented.*task "app".*(Secrets|secret)`),
		}},
	})
	var job map[string]any
	if _, err := nomad.Raw().Query("/v1/job/"+name, &job, nil); err != nil {
		t.Fatal(err)
	}
	task := job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
	if secrets, _ := task["Secrets"].([]any); len(secrets) != 1 {
		t.Fatalf("the job in Nomad lost its secret block: %v", task["Secrets"])
	}
}
