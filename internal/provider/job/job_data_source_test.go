package job_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// stillJobspec is a parameterized batch job with two groups and meta at
// every level: registered, it runs nothing until dispatched, so Nomad's
// copy holds still (no allocation or deployment moves its indexes) and the
// data source's read compares field for field with a read of our own.
func stillJobspec(name, namespace string) string {
	ns := ""
	if namespace != "" {
		ns = fmt.Sprintf("namespace = %q", namespace)
	}
	return fmt.Sprintf(`
job %q {
  %s
  type     = "batch"
  priority = 61
  meta = {
    team = "a"
  }
  parameterized {}
  group "one" {
    count = 2
    meta {
      tier = "x"
    }
    task "a" {
      driver = "raw_exec"
      meta {
        k = "v"
      }
      config {
        command = "/bin/true"
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
  group "two" {
    task "b" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
    task "c" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}`, name, ns)
}

// rawJob is Nomad's JSON of the job, decoded as a generic tree.
func rawJob(nomad *api.Client, namespace, id string) (any, error) {
	var raw json.RawMessage
	if _, err := nomad.Raw().Query("/v1/job/"+id, &raw, &api.QueryOptions{Namespace: namespace}); err != nil {
		return nil, fmt.Errorf("reading job %q from Nomad: %w", id, err)
	}
	var tree any
	return tree, json.Unmarshal(raw, &tree)
}

// sameJSON reports where the JSON text got differs from want, a decoded
// tree; "" when they are the same value.
func sameJSON(got string, want any) string {
	var tree any
	if err := json.Unmarshal([]byte(got), &tree); err != nil {
		return "not JSON: " + err.Error()
	}
	if reflect.DeepEqual(tree, want) {
		return ""
	}
	w, _ := json.Marshal(want)
	return fmt.Sprintf("got %s\nwant %s", got, w)
}

// checkJobDataMatchesNomad compares every attribute of the data source at
// addr with the job Nomad's API holds: the typed ones with its api.Job,
// json with its raw JSON, whole.
func checkJobDataMatchesNomad(t *testing.T, addr, namespace, id string) resource.TestCheckFunc {
	nomad := acctest.Nomad(t)
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		got := rs.Primary.Attributes
		job, _, err := nomad.Jobs().Info(id, &api.QueryOptions{Namespace: namespace})
		if err != nil {
			return fmt.Errorf("reading job %q from Nomad: %w", id, err)
		}
		u := func(v *uint64) string { return strconv.FormatUint(*v, 10) }
		want := map[string]string{
			"id": namespace + "/" + id, "job_id": id, "namespace": namespace, "name": *job.Name, "type": *job.Type,
			"version": u(job.Version), "region": *job.Region, "node_pool": *job.NodePool, "status": *job.Status,
			"status_description": *job.StatusDescription, "priority": strconv.Itoa(*job.Priority), "parent_id": *job.ParentID,
			"stop": strconv.FormatBool(*job.Stop), "stable": strconv.FormatBool(*job.Stable),
			"all_at_once": strconv.FormatBool(*job.AllAtOnce), "submit_time": strconv.FormatInt(*job.SubmitTime, 10),
			"create_index": u(job.CreateIndex), "modify_index": u(job.ModifyIndex), "job_modify_index": u(job.JobModifyIndex),
			"datacenters.#": strconv.Itoa(len(job.Datacenters)), "meta.%": strconv.Itoa(len(job.Meta)),
			"task_groups.#": strconv.Itoa(len(job.TaskGroups)),
		}
		for i, dc := range job.Datacenters {
			want[fmt.Sprintf("datacenters.%d", i)] = dc
		}
		for k, v := range job.Meta {
			want["meta."+k] = v
		}
		for i, g := range job.TaskGroups {
			at := fmt.Sprintf("task_groups.%d.", i)
			want[at+"name"], want[at+"count"] = *g.Name, strconv.Itoa(*g.Count)
			want[at+"task.#"] = strconv.Itoa(len(g.Tasks))
			for k, v := range g.Meta {
				want[at+"meta."+k] = v
			}
			for j, task := range g.Tasks {
				tat := fmt.Sprintf("%stask.%d.", at, j)
				want[tat+"name"], want[tat+"driver"] = task.Name, task.Driver
				for k, v := range task.Meta {
					want[tat+"meta."+k] = v
				}
			}
		}
		var diffs []string
		for k, v := range want {
			if got[k] != v {
				diffs = append(diffs, fmt.Sprintf("%s = %q, Nomad says %q", k, got[k], v))
			}
		}
		raw, err := rawJob(nomad, namespace, id)
		if err != nil {
			return err
		}
		if d := sameJSON(got["json"], raw); d != "" {
			diffs = append(diffs, "json differs from Nomad's: "+d)
		}
		if len(diffs) > 0 {
			return fmt.Errorf("%s:\n%s", addr, strings.Join(diffs, "\n"))
		}
		return nil
	}
}

// TestAccJobDataSource_matchesNomad: a job berth_job registered, read back
// through the data source in the provider's namespace (namespace unset):
// every typed attribute is what Nomad's API says (two groups, three tasks,
// meta at each level, in the jobspec's order), json is Nomad's JSON of the
// job whole, and id is berth_job's.
func TestAccJobDataSource_matchesNomad(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-jobds-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "berth_job" "t" {
  jobspec = <<-EOT
%s
  EOT
}

data "berth_job" "t" {
  job_id = berth_job.t.name
}
`, stillJobspec(name, "")),
			Check: resource.ComposeTestCheckFunc(
				checkJobDataMatchesNomad(t, "data.berth_job.t", "default", name),
				resource.TestCheckResourceAttrPair("data.berth_job.t", "id", "berth_job.t", "id"),
				resource.TestCheckResourceAttr("data.berth_job.t", "task_groups.1.task.1.name", "c"),
				resource.TestCheckResourceAttr("data.berth_job.t", "task_groups.0.meta.tier", "x"),
				resource.TestCheckResourceAttr("data.berth_job.t", "meta.team", "a"),
				resource.TestCheckResourceAttr("data.berth_job.t", "priority", "61"),
			),
		}},
	})
}

// TestAccJobDataSource_otherNamespace: a job registered through Nomad's API
// (not berth) in a namespace of its own is read with namespace set; a
// second read without namespace, in the provider's namespace, finds no
// such job.
func TestAccJobDataSource_otherNamespace(t *testing.T) {
	acctest.PreCheck(t)
	nomad := acctest.Nomad(t)
	name := "berth-acc-jobds-ns-" + acctest.RandomHex(3)
	ns := name
	if _, err := nomad.Namespaces().Register(&api.Namespace{Name: ns}, nil); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	job, err := nomad.Jobs().ParseHCL(stillJobspec(name, ns), false)
	if err != nil {
		t.Fatalf("parsing the jobspec: %v", err)
	}
	if _, _, err := nomad.Jobs().Register(job, &api.WriteOptions{Namespace: ns}); err != nil {
		t.Fatalf("registering job %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, _, err := nomad.Jobs().Deregister(name, true, &api.WriteOptions{Namespace: ns}); err != nil {
			t.Errorf("purging job %s: %v", name, err)
		}
		if _, err := nomad.Namespaces().Delete(ns, nil); err != nil {
			t.Errorf("deleting namespace %s: %v", ns, err)
		}
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
data "berth_job" "t" {
  job_id    = %q
  namespace = %q
}
`, name, ns),
				Check: checkJobDataMatchesNomad(t, "data.berth_job.t", ns, name),
			},
			{
				Config: fmt.Sprintf(`
data "berth_job" "t" {
  job_id = %q
}
`, name),
				ExpectError: regexp.MustCompile(`Nomad has no job "` + name + `" in namespace "default"`),
			},
		},
	})
}

// TestAccJobDataSource_missingJob: a job Nomad does not have is one error,
// at job_id, naming the job and the namespace; an empty job_id is refused
// at job_id before anything is read.
func TestAccJobDataSource_missingJob(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-jobds-none-" + acctest.RandomHex(3)
	requireOneError(t, fmt.Sprintf(`
data "berth_job" "t" {
  job_id = %q
}
`, name), "job_id", "Job not found", fmt.Sprintf(`Nomad has no job %q in namespace "default"`, name))
	requireOneError(t, `
data "berth_job" "t" {
  job_id = ""
}
`, "job_id", "Invalid Attribute Value Length", "at least 1")
}
