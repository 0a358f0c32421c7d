package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// nomadCorpus lists the jobspecs in the pinned Nomad module (e2e/, demo/,
// …): the real jobs berth_job is measured against.
func nomadCorpus(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hashicorp/nomad").Output()
	if err != nil {
		t.Fatalf("locating the Nomad module: %v", err)
	}
	root := strings.TrimSpace(string(out))
	files := map[string]string{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".nomad") && !strings.HasSuffix(p, ".hcl")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "job \"") {
			files[strings.TrimPrefix(p, root+"/")] = string(b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestAccJob_corpusReadsBackWithoutDrift registers every jobspec of
// Nomad's own corpus that its parser accepts with its defaults (under a
// name of its own, in the default namespace), reads it back and requires
// no drift: what Nomad fills in or normalizes must never read as a change.
// Jobs the dev agent refuses (Consul, Vault, CSI, namespaces or node pools
// it lacks) are counted, not failed.
func TestAccJob_corpusReadsBackWithoutDrift(t *testing.T) {
	testAccPreCheck(t)
	t.Parallel()
	nomad := testNomad(t)
	files := nomadCorpus(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var parsed, registered, refused, detected int
	suffix := "-" + randomHex(3)
	for _, file := range names {
		job, err := jobspec.Parse(jobspec.Spec{Source: files[file]})
		if err != nil {
			continue // needs variables without defaults, or is not HCL2
		}
		parsed++
		// A short ID: Nomad derives service names from it, at most 63 characters.
		id := fmt.Sprintf("corpus-%03d%s", parsed, suffix)
		job.ID, job.Name, job.Namespace, job.Region = &id, &id, ptrTo("default"), nil
		if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
			refused++
			t.Logf("refused by the dev agent: %s: %v", file, firstLine(err.Error()))
			continue
		}
		registered++
		live, _, err := nomad.Jobs().Info(id, nil)
		if err != nil {
			t.Errorf("%s: reading it back: %v", file, err)
			continue
		}
		if drift := jobspec.Drift(job, live); len(drift) > 0 {
			t.Errorf("%s reads back with drift:\n  %s", file, strings.Join(drift, "\n  "))
		} else if changedInNomad(t, nomad, file, job, live) {
			detected++
		}
		if _, _, err := nomad.Jobs().Deregister(id, true, nil); err != nil {
			t.Errorf("%s: purging: %v", file, err)
		}
	}
	t.Logf("corpus: %d jobspecs, %d parsed, %d registered and compared, %d refused by the dev agent; "+
		"a cpu changed through the API named in %d", len(files), parsed, registered, refused, detected)
	if registered < 150 {
		t.Errorf("only %d corpus jobs registered; the corpus or the agent changed", registered)
	}
}

// changedInNomad changes the first task's cpu through the API, when the
// jobspec sets it, and requires the drift to name exactly that field.
func changedInNomad(t *testing.T, nomad *api.Client, file string, want, live *api.Job) bool {
	t.Helper()
	task := live.TaskGroups[0].Tasks[0]
	wantTask := want.TaskGroups[0].Tasks[0]
	if wantTask.Resources == nil || wantTask.Resources.CPU == nil {
		return false
	}
	task.Resources.CPU = ptrTo(*task.Resources.CPU + 1)
	if _, _, err := nomad.Jobs().Register(live, nil); err != nil {
		t.Logf("%s: changing cpu refused: %v", file, firstLine(err.Error()))
		return false
	}
	changed, _, err := nomad.Jobs().Info(*live.ID, nil)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return false
	}
	drift := jobspec.Drift(want, changed)
	wantLine := fmt.Sprintf("group %q / task %q / resources.cpu: %d → %d", *live.TaskGroups[0].Name, task.Name,
		*wantTask.Resources.CPU+1, *wantTask.Resources.CPU)
	if len(drift) != 1 || drift[0] != wantLine {
		t.Errorf("%s: cpu changed in Nomad, drift %q, want [%q]", file, drift, wantLine)
		return false
	}
	return true
}

// firstLine is err's message on one line.
func firstLine(s string) string { return strings.Join(strings.Fields(s), " ") }
