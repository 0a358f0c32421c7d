package job

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// nomadCorpus lists the jobspecs in the Nomad module of the test agent's
// own version (e2e/, demo/, …), from the Go module cache (the agent was
// built from it): the real jobs berth_job is measured against. berth's
// module does not require Nomad (only its api), so the module is asked for
// by version.
func nomadCorpus(t *testing.T) map[string]string {
	t.Helper()
	version := acctest.AgentVersion(t)
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/hashicorp/nomad@v"+version).Output()
	if err != nil {
		t.Fatalf("locating the Nomad module v%s: %v", version, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("locating the Nomad module v%s: %v (%s)", version, err, out)
	}
	root := mod.Dir
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
// name of its own, in the namespace and node pool it names, which the test
// creates), reads it back and requires no drift: what Nomad fills in or
// normalizes must never read as a change. Nomad is the oracle: its plan
// diff of the parsed jobspec against the registered job must say no change
// too. Then one setting the jobspec sets is changed through Nomad's API (a
// cpu, an env or meta value, a count, by turns): berth's drift and Nomad's
// diff must name the same field. Jobs the agent refuses (Connect gateways,
// which write to Consul at registration) are counted, not failed; so are
// jobspecs that parse differently each time (uuidv4()).
func TestAccJob_corpusReadsBackWithoutDrift(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad := acctest.Nomad(t)
	oracle := testOracle(t)
	files := nomadCorpus(t)
	names := slices.Sorted(maps.Keys(files))
	var parsed, registered, refused, changing, changed int
	suffix := "-" + acctest.RandomHex(3)
	for _, file := range names {
		job, _, err := jobspec.Parse(jobspec.Spec{Source: files[file]}, testParser(t))
		if err != nil {
			refusedByParser(t, file, err)
			continue // needs variables without defaults, or is not HCL2
		}
		parsed++
		if !deterministic(t, files[file]) {
			changing++
			t.Logf("parses differently each time, not compared: %s", file)
			continue
		}
		// A short ID: Nomad derives service names from it, at most 63 characters.
		id := fmt.Sprintf("corpus-%03d%s", parsed, suffix)
		job.ID, job.Name, job.Region = &id, &id, nil
		job.Constraints = append(job.Constraints, api.NewConstraint("${meta.berth_corpus_never}", "is_set", ""))
		corpusPlaces(t, nomad, job)
		ns := &api.WriteOptions{Namespace: deref(job.Namespace)}
		if _, _, err := nomad.Jobs().Register(job, ns); err != nil {
			refused++
			t.Logf("refused by the test agent: %s: %v", file, firstLine(err.Error()))
			continue
		}
		registered++
		if changedInNomad(t, nomad, oracle, file, job, registered) {
			changed++
		}
		if err := purgeSettled(nomad, id, ns); err != nil {
			t.Errorf("%s: purging: %v", file, err)
		}
	}
	t.Logf("corpus: %d jobspecs, %d parsed, %d parse differently each time, %d registered and compared with Nomad's diff, "+
		"%d refused by the test agent; a change through the API named alike by berth and Nomad in %d",
		len(files), parsed, changing, registered, refused, changed)
	if registered < 200 {
		t.Errorf("only %d corpus jobs registered; the corpus or the agent changed", registered)
	}
}

// changedInNomad requires job, as registered, to read back without drift
// and with no change in Nomad's diff; then changes one setting the jobspec
// sets through the API (changeThroughAPI) and requires berth's drift and
// Nomad's diff to name it alike. It reports whether a change was made.
func changedInNomad(t *testing.T, nomad *api.Client, oracle *nomadclient.Client, file string, want *api.Job, which int) bool {
	t.Helper()
	q := &api.QueryOptions{Namespace: deref(want.Namespace)}
	live, _, err := nomad.Jobs().Info(*want.ID, q)
	if err != nil {
		t.Errorf("%s: reading it back: %v", file, err)
		return false
	}
	drift := jobspec.Drift(want, live)
	if len(drift) > 0 {
		t.Errorf("%s reads back with drift:\n  %s", file, strings.Join(drift, "\n  "))
	}
	if msg := oracleAgrees(t, oracle, want, drift); msg != "" {
		t.Errorf("%s as registered: %s", file, msg)
		return false
	}
	what := changeThroughAPI(want, live, which)
	if what == "" {
		return false
	}
	if _, _, err := nomad.Jobs().Register(live, &api.WriteOptions{Namespace: q.Namespace}); err != nil {
		t.Logf("%s: changing %s refused: %v", file, what, firstLine(err.Error()))
		return false
	}
	after, _, err := nomad.Jobs().Info(*want.ID, q)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return false
	}
	drift = jobspec.Drift(want, after)
	if len(drift) == 0 {
		// The promise is berth's drift empty exactly when Nomad's diff
		// is: a change Nomad's own diff does not see either (seen once in
		// a while on Nomad 1.11.3) did not reach the job.
		if msg := oracleAgrees(t, oracle, want, drift); msg == "" {
			t.Logf("%s: %s changed through the API, and neither berth's drift nor Nomad's diff sees a change", file, what)
			return false
		}
		t.Errorf("%s: %s changed in Nomad, no drift", file, what)
		return false
	}
	if msg := oracleAgrees(t, oracle, want, drift); msg != "" {
		t.Errorf("%s: %s changed in Nomad: %s", file, what, msg)
		return false
	}
	return true
}

// firstLine is err's message on one line.
func firstLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// unplaceable is a constraint no node meets, added to every corpus job:
// the jobs register and compare as they are, but none takes room on the
// nodes the other tests share, nor runs what its tasks say.
const unplaceable = `  constraint {
    attribute = "${meta.berth_corpus_never}"
    operator  = "is_set"
  }
`

// corpusJob is one of Nomad's jobspecs renamed for a test: its file, the
// job ID and namespace, and the first task's cpu when the jobspec sets it (0 otherwise).
type corpusJob struct {
	file, id, namespace string
	cpu                 int
}

// agreesWithNomad compares drift with Nomad's diff of j's jobspec
// against the job it holds (oracleAgrees).
func (j corpusJob) agreesWithNomad(t *testing.T, oracle *nomadclient.Client, drift []string) string {
	src, err := os.ReadFile(j.file)
	if err != nil {
		return err.Error()
	}
	job, _, err := jobspec.Parse(jobspec.Spec{Source: string(src)}, testParser(t))
	if err != nil {
		return err.Error()
	}
	job.Namespace = &j.namespace
	return oracleAgrees(t, oracle, job, drift)
}

// refusedByParser fails the test unless err is the cluster's parser
// refusing a jobspec: a request that failed (a connection, a 429) must not
// pass for a jobspec the corpus skips.
func refusedByParser(t *testing.T, file string, err error) {
	t.Helper()
	var refused *jobspec.ParseError
	if !errors.As(err, &refused) {
		t.Fatalf("%s: the parse failed, not the jobspec: %v", file, err)
	}
}

func (j corpusJob) query() *api.QueryOptions { return &api.QueryOptions{Namespace: j.namespace} }
func (j corpusJob) write() *api.WriteOptions { return &api.WriteOptions{Namespace: j.namespace} }

// acceptedCorpus renames every corpus jobspec that parses with its
// defaults, the same each time, and names no other region, and keeps
// those the test agent registers (in the namespace and node pool they
// name, created first; tried once through the API, then purged), written
// to files in dir.
func acceptedCorpus(t *testing.T, dir, prefix string) []corpusJob {
	t.Helper()
	nomad := acctest.Nomad(t)
	files := nomadCorpus(t)
	names := slices.Sorted(maps.Keys(files))
	label := regexp.MustCompile(`(?m)^\s*job\s+"[^"]*"\s*\{`)
	var out []corpusJob
	for i, file := range names {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		src := label.ReplaceAllString(files[file], fmt.Sprintf("job %q {\n%s", id, unplaceable))
		job, _, err := jobspec.Parse(jobspec.Spec{Source: src}, testParser(t))
		if err != nil {
			refusedByParser(t, file, err)
		}
		if err != nil || *job.ID != id || (job.Region != nil && *job.Region != "global") || !deterministic(t, src) {
			continue // not registrable as written, or plans an update every time (uuidv4())
		}
		corpusPlaces(t, nomad, job)
		ns := &api.WriteOptions{Namespace: deref(job.Namespace)}
		if _, _, err := nomad.Jobs().Register(job, ns); err != nil {
			continue // refused by the test agent (TestAccJob_corpusReadsBackWithoutDrift lists why)
		}
		if err := purgeSettled(nomad, id, ns); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%03d.nomad.hcl", i))
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		c := corpusJob{file: path, id: id, namespace: cmp.Or(deref(job.Namespace), "default")}
		if r := job.TaskGroups[0].Tasks[0].Resources; r != nil && r.CPU != nil {
			c.cpu = *r.CPU
		}
		out = append(out, c)
	}
	return out
}

// TestAccJob_corpusThroughTerraform applies every jobspec of Nomad's own
// corpus that the test agent registers as a berth_job (without waiting:
// most need Docker), requires Nomad's diff of each jobspec to say no
// change and the next plan to be empty, then changes the first task's cpu
// through Nomad's API in every job that sets it: the next plan updates
// exactly those jobs, naming resources.cpu in their drift as Nomad's diff
// names it, and the apply puts each back.
func TestAccJob_corpusThroughTerraform(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, oracle := acctest.Nomad(t), testOracle(t)
	dir := t.TempDir()
	jobs := acceptedCorpus(t, dir, "tfc-"+acctest.RandomHex(3))
	if len(jobs) < 150 {
		t.Fatalf("only %d corpus jobs register; the corpus or the agent changed", len(jobs))
	}
	var config strings.Builder
	withCPU := 0
	for i, j := range jobs {
		fmt.Fprintf(&config, "resource \"berth_job\" \"c%03d\" {\n  jobspec          = file(%q)\n  wait_for_healthy = false\n  plan_failures    = \"warn\"\n}\n", i, j.file)
		if j.cpu > 0 {
			withCPU++
		}
	}
	t.Logf("corpus through Terraform: %d jobs, %d set the first task's cpu", len(jobs), withCPU)
	changeCPU := func() {
		for _, j := range jobs {
			if j.cpu == 0 {
				continue
			}
			live, _, err := nomad.Jobs().Info(j.id, j.query())
			if err != nil {
				t.Fatal(err)
			}
			live.TaskGroups[0].Tasks[0].Resources.CPU = acctest.Ptr(j.cpu + 1)
			if _, _, err := nomad.Jobs().Register(live, j.write()); err != nil {
				t.Fatalf("%s: changing cpu: %v", j.file, err)
			}
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config.String(),
				Check: func(*terraform.State) error {
					for _, j := range jobs {
						if _, _, err := nomad.Jobs().Info(j.id, j.query()); err != nil {
							return fmt.Errorf("%s: not in Nomad after the apply: %v", j.file, err)
						}
						if msg := j.agreesWithNomad(t, oracle, nil); msg != "" {
							return fmt.Errorf("%s as applied: %s", j.file, msg)
						}
					}
					return nil
				},
			},
			{Config: config.String(), PlanOnly: true},
			{
				PreConfig: changeCPU,
				Config:    config.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					corpusDriftCheck{t: t, oracle: oracle, jobs: jobs},
				}},
				Check: func(*terraform.State) error {
					for _, j := range jobs {
						if j.cpu == 0 {
							continue
						}
						live, _, err := nomad.Jobs().Info(j.id, j.query())
						if err != nil || *live.TaskGroups[0].Tasks[0].Resources.CPU != j.cpu {
							return fmt.Errorf("%s: cpu not put back (err %v)", j.file, err)
						}
					}
					return nil
				},
			},
		},
	})
}

// corpusDriftCheck requires an update of exactly the jobs whose cpu was
// changed, each with a drift entry naming resources.cpu, as Nomad's diff
// of its jobspec names it.
type corpusDriftCheck struct {
	t      *testing.T
	oracle *nomadclient.Client
	jobs   []corpusJob
}

func (c corpusDriftCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	changed := map[string]bool{}
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change.Actions.NoOp() {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		drift, _ := before["drift"].([]any)
		named := false
		for _, d := range drift {
			s, _ := d.(string)
			named = named || strings.Contains(s, "resources.cpu")
		}
		if !rc.Change.Actions.Update() || !named {
			resp.Error = fmt.Errorf("%s: actions %v, drift %v; want an update naming resources.cpu", rc.Address, rc.Change.Actions, drift)
			return
		}
		changed[rc.Address] = true
		var lines []string
		for _, d := range drift {
			s, _ := d.(string)
			lines = append(lines, s)
		}
		var i int
		if _, err := fmt.Sscanf(rc.Address, "berth_job.c%03d", &i); err != nil || i >= len(c.jobs) {
			resp.Error = fmt.Errorf("%s: not a corpus job", rc.Address)
			return
		}
		if msg := c.jobs[i].agreesWithNomad(c.t, c.oracle, lines); msg != "" {
			resp.Error = fmt.Errorf("%s (%s): %s", rc.Address, c.jobs[i].file, msg)
			return
		}
	}
	for i, j := range c.jobs {
		if want := j.cpu > 0; changed[fmt.Sprintf("berth_job.c%03d", i)] != want {
			resp.Error = fmt.Errorf("%s (%s): updated %v, want %v", j.file, j.id, !want, want)
			return
		}
	}
}

// TestAccJob_corpusImportsToEmptyPlan registers every accepted corpus job
// through the API and writes an import block for each. Every other job is
// registered with its source, as `nomad job run` sends it, and its
// configuration is the hand-written file itself (`jobspec = file(…)`); the
// rest are registered bare, and Terraform generates their configuration
// (`terraform plan -generate-config-out`, the job as JSON). The plan is
// imports only, with no change, and the jobs keep their modify index in
// Nomad.
func TestAccJob_corpusImportsToEmptyPlan(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad := acctest.Nomad(t)
	jobs := acceptedCorpus(t, t.TempDir(), "imp-"+acctest.RandomHex(3))
	var config strings.Builder
	config.WriteString("provider \"berth\" {}\n")
	before := map[corpusJob]uint64{}
	for i, j := range jobs {
		src, err := os.ReadFile(j.file)
		if err != nil {
			t.Fatal(err)
		}
		job, _, err := jobspec.Parse(jobspec.Spec{Source: string(src)}, testParser(t))
		if err != nil {
			t.Fatal(err)
		}
		var opts *api.RegisterOptions
		if i%2 == 0 {
			opts = &api.RegisterOptions{Submission: &api.JobSubmission{Source: string(src), Format: jobspec.FormatHCL2}}
			fmt.Fprintf(&config, "resource \"berth_job\" \"c%03d\" {\n  jobspec = file(%q)\n}\n", i, j.file)
		}
		if _, _, err := nomad.Jobs().RegisterOpts(job, opts, j.write()); err != nil {
			t.Fatalf("%s: %v", j.file, err)
		}
		t.Cleanup(func() { _ = purgeSettled(nomad, j.id, j.write()) })
		live, _, err := nomad.Jobs().Info(j.id, j.query())
		if err != nil {
			t.Fatal(err)
		}
		before[j] = *live.JobModifyIndex
		fmt.Fprintf(&config, "import {\n  to = berth_job.c%03d\n  id = \"%s/%s\"\n}\n", i, j.namespace, j.id)
	}
	c := acctest.NewTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c.Init(ctx, config.String())
	if _, err := c.TF.Plan(ctx, tfexec.Reattach(c.Reattach), tfexec.GenerateConfigOut("generated.tf")); err != nil {
		t.Fatalf("plan -generate-config-out: %v\n%s", err, c.Out.Take())
	}
	acctest.ExpectImportsOnly(ctx, t, c, len(jobs))
	for j, index := range before {
		live, _, err := nomad.Jobs().Info(j.id, j.query())
		if err != nil || *live.JobModifyIndex != index {
			t.Errorf("%s: modify index %v after the import plan, was %d (%v)", j.id, live.JobModifyIndex, index, err)
		}
	}
	t.Logf("corpus import: %d jobs (%d from their files, %d generated) planned as imports with no change", len(jobs),
		(len(jobs)+1)/2, len(jobs)/2)
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// purgeSettled purges job id once no evaluation of it is pending, so that
// no scheduler plan for it is still in flight: Nomad 1.11.3's plan applier
// dereferences the job of a plan whose job was purged meanwhile and the
// agent panics (nomad/plan_apply.go, applyPlan), which the corpus, quick
// to register and purge, met on the compatibility line.
func purgeSettled(nomad *api.Client, id string, w *api.WriteOptions) error {
	q := &api.QueryOptions{Namespace: w.Namespace}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		evals, _, err := nomad.Jobs().Evaluations(id, q)
		if err != nil {
			return err
		}
		pending := slices.ContainsFunc(evals, func(e *api.Evaluation) bool { return e.Status == api.EvalStatusPending })
		if !pending || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, _, err := nomad.Jobs().Deregister(id, true, w)
	return err
}
