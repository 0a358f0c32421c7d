package instance

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestInstance_badInputIsRejectedAtPlan runs the real terraform CLI: each
// case fails at plan time with an error at the attribute, and nothing
// reaches Nomad (the provider points at a closed port).
func TestInstance_badInputIsRejectedAtPlan(t *testing.T) {
	svc := `driver = "raw_exec", command = "/bin/sleep"`
	cases := []struct {
		name, body, want string
	}{
		{"no main service", fmt.Sprintf(`services = { a = { role = "init", %s } }`, svc), `(?s)No main service`},
		{"unknown role", fmt.Sprintf(`services = { a = { role = "daemon", %s } }`, svc), `(?s)services\["a"\].role.*value must be one of`},
		{"memory_max below memory", fmt.Sprintf(`services = { a = { %s, memory = 256, memory_max = 128 } }`, svc), `(?s)Invalid memory_max.*memory_max \(128 MiB\) must be at least memory \(256 MiB\)`},
		{"zero cpu", fmt.Sprintf(`services = { a = { %s, cpu = 0 } }`, svc), `(?s)services\["a"\].cpu.*at least 1`},
		{"negative replicas", fmt.Sprintf("replicas = -1\n services = { a = { %s } }", svc), `(?s)replicas.*at least 0`},
		{"bad duration", fmt.Sprintf("update = { min_healthy_time = \"ten seconds\" }\n services = { a = { %s } }", svc), `(?s)Invalid Time Duration String Value.*"ten seconds"`},
		{"duplicate port label", fmt.Sprintf(`services = {
  a = { %[1]s, ports = { http = {} } }
  b = { role = "sidecar", %[1]s, ports = { http = {} } }
}`, svc), `(?s)services\["b"\].ports\["http"\].*(?i)duplicate|already`},
		{"check on undeclared port", fmt.Sprintf(`services = { a = { %s, check = { type = "tcp", port = "nope" } } }`, svc), `(?s)Unknown check port.*"nope"`},
		{"bad network mode", fmt.Sprintf("network_mode = \"cni/x\"\n services = { a = { %s } }", svc), `(?s)network_mode.*value must be one of`},
		{"raw_exec cannot mount", `volumes = { data = { volume = "x" } }
 services = { a = { driver = "raw_exec", command = "/bin/sleep", mounts = [{ volume = "data", destination = "/data" }] } }`,
			`(?s)Driver cannot mount volumes.*does not support host volumes`},
		{"mount of an undeclared volume", fmt.Sprintf(`services = { a = { %s, mounts = [{ volume = "nope", destination = "/data" }] } }`,
			`driver = "exec", command = "/bin/sleep"`), `(?s)nope`},
		{"config not an object", fmt.Sprintf(`services = { a = { %s, config = "[1]" } }`, svc), `(?s)Invalid driver config.*JSON object`},
		{"negative kill_timeout", fmt.Sprintf(`services = { a = { %s, policies = { kill_timeout = "-5s" } } }`, svc), `(?s)Invalid kill_timeout.*-5s`},
		{"ambiguous reschedule", fmt.Sprintf("policies = { reschedule = { attempts = 2 } }\n services = { a = { %s } }", svc), `(?s)Ambiguous reschedule policy.*set unlimited = false`},
		{"restart delay mode without attempts", fmt.Sprintf("policies = { restart = { attempts = 0, mode = \"delay\" } }\n services = { a = { %s } }", svc), `(?s)Invalid restart mode.*ambiguous`},
		{"zero stagger", fmt.Sprintf("update = { stagger = \"0s\" }\n services = { a = { %s } }", svc), `(?s)Invalid stagger.*greater than 0`},
		{"auto_promote without canaries", fmt.Sprintf("update = { auto_promote = true }\n services = { a = { %s } }", svc),
			`(?s)auto_promote without canaries.*canary is 0`},
		{"unknown health_check", fmt.Sprintf("update = { health_check = \"always\" }\n services = { a = { %s } }", svc),
			`(?s)update.health_check.*value must be one of`},
		{"replicas on a system job", fmt.Sprintf("type = \"system\"\n replicas = 2\n services = { a = { %s } }", svc), `(?s)replicas on a system job.*no replica count`},
		{"canary on a system job", fmt.Sprintf("type = \"system\"\n update = { canary = 1 }\n services = { a = { %s } }", svc), `(?s)Canaries on a system job.*no deployments`},
		{"update on a batch job", fmt.Sprintf("type = \"batch\"\n update = { max_parallel = 1 }\n services = { a = { %s } }", svc), `(?s)update on a batch job.*Nomad refuses`},
		{"unknown job type", fmt.Sprintf("type = \"sysbatch\"\n services = { a = { %s } }", svc), `(?s)type.*value must be one of`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acctest.ExpectPlanRejects(t, `resource "berth_instance" "t" {
  name = "bad"
  `+tc.body+`
}`, tc.want)
		})
	}
}

func TestFieldPath(t *testing.T) {
	cases := map[string][]any{
		`services["a"].ports["http"].static`:       {"services", "a", "ports", "http", "static"},
		`services["web"].check.port`:               {"services", "web", "check", "port"},
		`update.min_healthy_time`:                  {"update", "min_healthy_time"},
		`meta["berth.kind"]`:                       {"meta", "berth.kind"},
		`replicas`:                                 {"replicas"},
		`services["web"].mounts[1].volume`:         {"services", "web", "mounts", 1, "volume"},
		`volumes["data"].access_mode`:              {"volumes", "data", "access_mode"},
		`services["web"].env["A"]`:                 {"services", "web", "env", "A"},
		`services["web"].policies.meta["berth.x"]`: {"services", "web", "policies", "meta", "berth.x"},
		`services["web"].policies.logs`:            {"services", "web", "policies", "logs"},
		`policies.restart.interval`:                {"policies", "restart", "interval"},
	}
	for want, elems := range cases {
		if got := fieldPath(elems).String(); got != want {
			t.Errorf("fieldPath(%v) = %s, want %s", elems, got, want)
		}
	}
}

// TestInstance_partialUpdateBlockPlans: attributes left out of `update`
// take Nomad's defaults; the plan must not read them as zero.
func TestInstance_partialUpdateBlockPlans(t *testing.T) {
	expectPlansOffline(t, `
resource "berth_instance" "t" {
  name     = "partial"
  update   = { min_healthy_time = "2s" }
  services = { a = { driver = "raw_exec", command = "/bin/sleep" } }
}`)
}

// TestInstance_unknownValuesPlan: values known only after apply (inside
// maps and lists, and the namespace) plan cleanly; nothing is guessed for
// them and nothing fails validation. terraform_data is built into
// Terraform, so no other provider is needed.
func TestInstance_unknownValuesPlan(t *testing.T) {
	expectPlansOffline(t, `
resource "terraform_data" "later" {
  input = "value"
}
resource "berth_instance" "t" {
  name        = "unknowns"
  namespace   = terraform_data.later.output
  datacenters = [terraform_data.later.output]
  meta        = { v = terraform_data.later.output }
  services = {
    a = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["--flag", terraform_data.later.output]
      env     = { V = terraform_data.later.output }
    }
  }
}
resource "berth_volume" "v" {
  name      = "unknowns"
  namespace = terraform_data.later.output
}`)
}

// TestInstance_partialPoliciesPlan: fields left out of a policy block are
// Nomad's to fill in; the plan neither fails nor reads them as zero.
func TestInstance_partialPoliciesPlan(t *testing.T) {
	expectPlansOffline(t, `
resource "berth_instance" "t" {
  name       = "partial-policies"
  policies = {
    restart        = { attempts = 0 }
    reschedule     = { attempts = 0, unlimited = false }
    migrate        = { max_parallel = 2 }
    ephemeral_disk = { size = 200 }
  }
  services = { a = {
    driver   = "raw_exec"
    command  = "/bin/sleep"
    policies = { kill_timeout = "0s", logs = { max_files = 2 }, meta = { team = "a" } }
  } }
}`)
}

// expectPlansOffline plans config with the real terraform CLI against a
// provider pointed at a closed port, and expects a plan with changes and
// no error: planning it needs nothing from Nomad.
func expectPlansOffline(t *testing.T, config string) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:             "provider \"berth\" {\n  address = \"http://127.0.0.1:1\"\n}\n" + config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
