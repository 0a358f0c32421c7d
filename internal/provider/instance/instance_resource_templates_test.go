package instance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// waitForAllocFile waits until the file reads want.
func waitForAllocFile(t *testing.T, job, file, want string) {
	t.Helper()
	acctest.WaitFor(t, fmt.Sprintf("%s to read %q", file, want), 3*time.Minute, func() (bool, error) {
		got, err := acctest.AllocFile(acctest.Nomad(t), job, file)
		if err == nil && got != want {
			err = fmt.Errorf("it reads %q", got)
		}
		return err == nil, err
	})
}

// expectBefore is a plan check that the resource's prior value at path
// (what berth read from Nomad) is want: the plan names the drifted field.
type expectBefore struct {
	path tfjsonpath.Path
	want any
}

func (e expectBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	rc := plannedChange(req, acctest.InstanceAddr)
	if rc == nil {
		resp.Error = fmt.Errorf("no change planned for %s", acctest.InstanceAddr)
		return
	}
	if got, err := tfjsonpath.Traverse(rc.Change.Before, e.path); err != nil || got != e.want {
		resp.Error = fmt.Errorf("before the plan %s = %v (%v), want %v", e.path, got, err, e.want)
	}
}

// TestAccInstanceTemplate_variable: a template reading a Nomad Variable
// renders into the allocation (read through Nomad's filesystem API); when
// the Variable changes, the task restarts (change_mode "restart") and the
// file has the new value.
func TestAccInstanceTemplate_variable(t *testing.T) {
	name := startInstanceTest(t)
	acctest.SetJobVariable(t, name, map[string]string{"greeting": "hello-1"})
	data := fmt.Sprintf(`{{ with nomadVar "nomad/jobs/%s" }}greeting={{ .greeting }}{{ end }}`, name)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1", App: fmt.Sprintf(`templates = [{
        data        = %q
        destination = "local/app.conf"
        change_mode = "restart"
        splay       = "0s"
      }]`, data)}.String()
	templates := tfjsonpath.New("services").AtMapKey("app").AtMapKey("templates")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, templates.AtSliceIndex(0).AtMapKey("data"), knownvalue.StringExact(data)),
				// Left to Nomad: null in state.
				statecheck.ExpectKnownValue(acctest.InstanceAddr, templates.AtSliceIndex(0).AtMapKey("perms"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("services").AtMapKey("app").AtMapKey("artifacts"), knownvalue.Null()),
			},
			Check: func(*terraform.State) error {
				got, err := acctest.AllocFile(acctest.Nomad(t), name, "app/local/app.conf")
				if err != nil {
					return err
				}
				if got != "greeting=hello-1" {
					return fmt.Errorf("app/local/app.conf = %q, want the Variable's value", got)
				}
				// Change the Variable: Nomad re-renders and restarts the task.
				acctest.SetJobVariable(t, name, map[string]string{"greeting": "hello-2"})
				waitForAllocFile(t, name, "app/local/app.conf", "greeting=hello-2")
				acctest.WaitFor(t, "the task to restart", 3*time.Minute, func() (bool, error) {
					alloc, err := acctest.RunningAlloc(acctest.Nomad(t), name)
					if err != nil {
						return false, err
					}
					ts := alloc.TaskStates["app"]
					if ts == nil {
						return false, fmt.Errorf("no task state")
					}
					signaled := slices.IndexFunc(ts.Events, func(e *api.TaskEvent) bool {
						return e.Type == api.TaskRestartSignal && strings.Contains(e.RestartReason+e.DisplayMessage, "emplate")
					})
					if signaled < 0 {
						return false, fmt.Errorf("no template restart among %d events", len(ts.Events))
					}
					restarted := slices.ContainsFunc(ts.Events[signaled:], func(e *api.TaskEvent) bool { return e.Type == api.TaskStarted })
					return restarted && ts.State == "running", fmt.Errorf("task %s, not started again after the restart", ts.State)
				})
				return nil
			},
		},
		{
			// Nomad's rendering is not drift.
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}},
		},
	})
}

// TestAccInstanceTemplate_driftAndImport: a template's data changed through
// the HTTP API shows in the next plan at its attribute and the apply puts
// it back; a job written by hand with templates, an artifact and two
// services imports with an empty plan.
func TestAccInstanceTemplate_driftAndImport(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1", App: `templates = [
        { data = "a=1", destination = "local/a.conf", change_mode = "noop" },
        { data = "b=1", destination = "local/b.conf", perms = "0600" },
      ]`}.String()
	data := tfjsonpath.New("services").AtMapKey("app").AtMapKey("templates").AtSliceIndex(0).AtMapKey("data")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg},
		{
			Config: cfg,
			PreConfig: acctest.MutateJob(t, name, func(j *api.Job) {
				appTask(j).Templates[0].EmbeddedTmpl = acctest.Ptr("a=2")
			}),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				expectBefore{path: data, want: "a=2"},
				plancheck.ExpectKnownValue(acctest.InstanceAddr, data, knownvalue.StringExact("a=1")),
			}},
			Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				tms := appTask(job).Templates
				if len(tms) != 2 || *tms[0].EmbeddedTmpl != "a=1" || *tms[1].Perms != "0600" || *tms[0].ChangeMode != "noop" {
					return fmt.Errorf("templates in Nomad = %+v, %+v", tms[0], tms[1])
				}
				return nil
			}),
		},
	})

	// A job written by hand, registered through the API: templates, an
	// artifact and two services in one task.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "tool") }))
	t.Cleanup(srv.Close)
	hand := acctest.InstanceName(t)
	job := &api.Job{
		ID: acctest.Ptr(hand), Name: acctest.Ptr(hand), Type: acctest.Ptr("service"), Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), MinHealthyTime: acctest.Ptr(time.Second),
				HealthyDeadline: acctest.Ptr(30 * time.Second), ProgressDeadline: acctest.Ptr(time.Minute)},
			Networks: []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}},
			Tasks: []*api.Task{{
				Services: []*api.Service{
					{Name: hand + "-web", Provider: "nomad", PortLabel: "http", Tags: []string{"web"}},
					{Name: hand + "-admin", Provider: "nomad", PortLabel: "http", Tags: []string{"admin"}},
				},
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(32)},
				Templates: []*api.Template{
					{EmbeddedTmpl: acctest.Ptr(`port={{ env "NOMAD_ALLOC_ID" }}`), DestPath: acctest.Ptr("local/app.conf"), ChangeMode: acctest.Ptr("signal"),
						ChangeSignal: acctest.Ptr("SIGUSR1"), Splay: acctest.Ptr(time.Second)},
					{EmbeddedTmpl: acctest.Ptr("MODE=prod\n"), DestPath: acctest.Ptr("local/app.env"), Envvars: acctest.Ptr(true)},
				},
				Artifacts: []*api.TaskArtifact{{GetterSource: acctest.Ptr(srv.URL + "/tool"), GetterMode: acctest.Ptr("file"),
					RelativeDest: acctest.Ptr("local/bin/tool")}},
			}},
		}},
	}
	if _, _, err := acctest.Nomad(t).Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	imported := fmt.Sprintf(`
resource "berth_instance" "t" {
  name     = %[1]q
  replicas = 1
  update   = { min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = 50
      memory  = 32
      templates = [
        { data = "port={{ env \"NOMAD_ALLOC_ID\" }}", destination = "local/app.conf", change_mode = "signal", change_signal = "SIGUSR1", splay = "1s" },
        { data = "MODE=prod\n", destination = "local/app.env", env = true },
      ]
      artifacts = [{ source = %[2]q, mode = "file", destination = "local/bin/tool" }]
      ports     = { http = {} }
      registrations = [
        { name = "%[1]s-web", port = "http", tags = ["web"] },
        { name = "%[1]s-admin", port = "http", tags = ["admin"] },
      ]
    }
  }
}`, hand, srv.URL+"/tool")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, hand),
		Steps: adoptSteps(imported, hand, importedAttrs(
			map[string]string{"services.app.templates.#": "2", "services.app.templates.0.change_signal": "SIGUSR1",
				"services.app.templates.1.env": "true", "services.app.artifacts.0.mode": "file",
				"services.app.registrations.#": "2", "services.app.registrations.1.tags.0": "admin"},
			[]string{"services.app.templates.0.perms", "services.app.templates.1.change_mode", "services.app.artifacts.0.chown"})),
	})
}

// TestAccInstanceArtifact_download: an artifact served by a loopback HTTP
// server is downloaded into the allocation, checked against its checksum;
// with a wrong checksum the apply fails with Nomad's message.
func TestAccInstanceArtifact_download(t *testing.T) {
	name := startInstanceTest(t)
	content := "artifact " + acctest.RandomHex(8) + "\n"
	sum := sha256.Sum256([]byte(content))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/dist/tool.txt" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, content)
	}))
	t.Cleanup(srv.Close)
	cfg := func(checksum string) string {
		return acctest.InstanceConfig{Name: name, Extra: `replicas = 1
  policies = {
    restart    = { attempts = 0 }
    reschedule = { attempts = 0, unlimited = false }
  }`, App: fmt.Sprintf(`artifacts = [{
        source      = %q
        destination = "local/tool.txt"
        mode        = "file"
        options     = { checksum = "sha256:%s" }
        headers     = { X-Token = "not-shown" }
      }]`, srv.URL+"/dist/tool.txt", checksum)}.String()
	}
	wrong := sha256.Sum256([]byte("something else"))
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg(hex.EncodeToString(sum[:])),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					got, err := acctest.AllocFile(acctest.Nomad(t), name, "app/local/tool.txt")
					if err == nil && got != content {
						err = fmt.Errorf("app/local/tool.txt = %q, want %q", got, content)
					}
					return err
				},
				acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					a := appTask(job).Artifacts
					if len(a) != 1 || a[0].GetterHeaders["X-Token"] != "not-shown" || *a[0].GetterMode != "file" {
						return fmt.Errorf("artifacts in Nomad = %+v", a)
					}
					return nil
				}),
			),
		},
		{
			Config:      cfg(hex.EncodeToString(wrong[:])),
			ExpectError: regexp.MustCompile(`(?s)Failed\s+Artifact\s+Download.*Checksums\s+did\s+not\s+match`),
		},
	})
}
