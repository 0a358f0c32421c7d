package namespace_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const nsAddr = "berth_namespace.ns"

// nsName is a fresh namespace name for one test.
func nsName(what string) string { return "berth-acc-ns-" + what + "-" + acctest.RandomHex(3) }

// readNamespace reads name from Nomad; nil when it does not exist.
func readNamespace(t *testing.T, name string) (*api.Namespace, error) {
	ns, _, err := acctest.Nomad(t).Namespaces().Info(name, nil)
	if acctest.IsNotFound(err) {
		return nil, nil
	}
	return ns, err
}

// wantNamespace is what a namespace in Nomad must hold.
type wantNamespace struct {
	description     string
	meta            map[string]string
	enabledDrivers  []string
	disabledDrivers []string
	disabledModes   []string
}

// checkNamespace reads the namespace from Nomad and requires want.
func checkNamespace(t *testing.T, name string, want wantNamespace) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ns, err := readNamespace(t, name)
		if err != nil || ns == nil {
			return fmt.Errorf("reading namespace %q from Nomad: %v (found %v)", name, err, ns != nil)
		}
		var got wantNamespace
		got.description, got.meta = ns.Description, ns.Meta
		if c := ns.Capabilities; c != nil {
			got.enabledDrivers, got.disabledDrivers, got.disabledModes = c.EnabledTaskDrivers, c.DisabledTaskDrivers, c.DisabledNetworkModes
		}
		same := func(a, b []string) bool {
			a, b = slices.Clone(a), slices.Clone(b)
			slices.Sort(a)
			slices.Sort(b)
			return slices.Equal(a, b)
		}
		if got.description != want.description || !maps.Equal(got.meta, want.meta) || !same(got.enabledDrivers, want.enabledDrivers) ||
			!same(got.disabledDrivers, want.disabledDrivers) || !same(got.disabledModes, want.disabledModes) {
			return fmt.Errorf("namespace %q in Nomad is %+v; want %+v", name, got, want)
		}
		return nil
	}
}

// checkNamespaceGone requires that Nomad has no namespace called name.
func checkNamespaceGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		ns, err := readNamespace(t, name)
		if err != nil {
			return fmt.Errorf("reading namespace %q: %v", name, err)
		}
		if ns != nil {
			return fmt.Errorf("namespace %q is still in Nomad: %+v", name, ns)
		}
		return nil
	}
}

// registerJob registers a batch job in namespace ns through Nomad's API.
// The ACL agent has no client, so it stays pending: it lives in the
// namespace until purged.
func registerJob(t *testing.T, ns, id string) {
	t.Helper()
	job := api.NewBatchJob(id, id, "global", 50)
	job.Namespace = &ns
	job.Datacenters = []string{"*"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := acctest.Nomad(t).Jobs().Register(job, &api.WriteOptions{Namespace: ns}); err != nil {
		t.Fatalf("registering job %q in namespace %q: %v", id, ns, err)
	}
}

// purgeJob stops and purges a job registered by registerJob.
func purgeJob(t *testing.T, ns, id string) {
	t.Helper()
	if _, _, err := acctest.Nomad(t).Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns}); err != nil {
		t.Fatalf("purging job %q in namespace %q: %v", id, ns, err)
	}
}

// badNamespaceInput applies config, which berth must refuse at validate or
// plan with exactly one error, at path, whose summary matches summary;
// namespace name must not exist in Nomad afterwards.
func badNamespaceInput(t *testing.T, name, config, path, summary string) {
	t.Helper()
	rec := &acctest.DiagRecorder{}
	var cliErr error
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := acctest.NewServer()
				return &acctest.RecordingServer{ProviderServer: s, Rec: rec}, err
			},
		},
		ErrorCheck: func(err error) error {
			cliErr = err
			return nil
		},
		Steps: []resource.TestStep{{
			Config: config,
			Check:  func(*terraform.State) error { return fmt.Errorf("the bad input was applied without an error") },
		}},
	})
	if cliErr == nil {
		t.Fatal("terraform reported no error")
	}
	out := cliErr.Error()
	if n := len(regexp.MustCompile(`(?:\A|\n[ \t]*\n)Error: `).FindAllString(out, -1)); n != 1 {
		t.Fatalf("terraform reported %d errors, want exactly 1:\n%s", n, out)
	}
	errs := rec.Errors()
	if len(errs) != 1 {
		t.Fatalf("the provider returned %d errors, want 1: %+v", len(errs), errs)
	}
	d := errs[0]
	if d.Path != path || !regexp.MustCompile(summary).MatchString(d.Summary) || strings.TrimSpace(d.Detail) == "" {
		t.Errorf("the error is %+v; want one at %q with a summary matching %q and a detail", d, path, summary)
	}
	if d.Rpc == "ApplyResourceChange" {
		t.Errorf("the error came at apply; it must come at validate or plan: %+v", d)
	}
	if ns, err := readNamespace(t, name); err != nil || ns != nil {
		t.Errorf("namespace %q after the refused input: %+v (err %v); want none", name, ns, err)
	}
}

// expectChanged requires the plan to change exactly the named top-level
// attributes of addr: drift is named, nothing else moves.
type expectChanged struct {
	addr  string
	attrs []string
}

func (e expectChanged) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		var changed []string
		for k := range acctest.Union(before, after) {
			if !reflect.DeepEqual(before[k], after[k]) {
				changed = append(changed, k)
			}
		}
		sort.Strings(changed)
		want := slices.Sorted(slices.Values(e.attrs))
		if !slices.Equal(changed, want) {
			resp.Error = fmt.Errorf("%s: the plan changes %v, want exactly %v", e.addr, changed, want)
		}
		return
	}
	resp.Error = fmt.Errorf("the plan has no change for %s", e.addr)
}
