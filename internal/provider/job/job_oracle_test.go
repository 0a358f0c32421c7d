package job

import (
	"context"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// Nomad is the oracle for berth_job's drift (nomadclient.PlanChanges):
// these helpers ask it and compare its answer with jobspec.Drift.

// testOracle is a berth Nomad client for asking Nomad's plan with diff.
// testParser is the test agent's jobspec parser, as berth asks it.
func testParser(t *testing.T) jobspec.Parser {
	t.Helper()
	return testOracle(t).Parser(t.Context(), "")
}

// testOracle is one client for the package: each client has its own
// connection pool, and a client per parse (hundreds a minute in the
// corpus tests) went past Nomad's limit of connections per client
// address (429).
func testOracle(t *testing.T) *nomadclient.Client {
	t.Helper()
	oracleOnce.Do(func() {
		oracle, oracleErr = nomadclient.New(nomadclient.Config{Address: os.Getenv("NOMAD_ADDR"), Token: os.Getenv("NOMAD_TOKEN")})
	})
	if oracleErr != nil {
		t.Fatal(oracleErr)
	}
	return oracle
}

var (
	oracleOnce sync.Once
	oracle     *nomadclient.Client
	oracleErr  error
)

// namedFields reduces drift lines and Nomad's diff paths to the same
// names, so that the two can be compared: the group and task a change is
// in and the jobspec name of the setting or block that changed, the first
// name after them, in lower case without underscores, labels, indexes or
// map keys (`group "g" / task "t" / resources.cpu: 1 → 2` and Nomad's
// `group "g" / task "t" / Resources.CPU` both read `group "g" / task "t" /
// resources`).
func namedFields(lines []string) []string {
	set := map[string]bool{}
	for _, l := range lines {
		p, _, _ := strings.Cut(l, ": ")
		var scope []string
		name := ""
		for _, part := range strings.Split(p, " / ") {
			if strings.HasPrefix(part, `group "`) || strings.HasPrefix(part, `task "`) {
				scope = append(scope, part)
				continue
			}
			name = strings.ToLower(strings.ReplaceAll(part, "_", ""))
			name = strings.FieldsFunc(name, func(r rune) bool { return r == '.' || r == '[' || r == ' ' })[0]
			if alias, ok := nomadNames[name]; ok {
				name = alias
			}
			break
		}
		set[strings.Join(append(scope, name), " / ")] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// nomadNames are Nomad's diff names (struct fields) that differ from the
// jobspec's, lower-cased.
var nomadNames = map[string]string{
	"restartpolicy": "restart", "reschedulepolicy": "reschedule", "identities": "identity", "services": "service",
	"templates": "template", "artifacts": "artifact", "networks": "network", "logconfig": "logs",
	"volumemounts": "volumemount", "affinities": "affinity", "spreads": "spread", "constraints": "constraint",
}

// oracleAgrees asks Nomad's diff of job (as submitted) against the job it
// holds, and reports a disagreement with drift: drift empty exactly when
// Nomad's diff is, and naming the same fields otherwise. "" when they
// agree.
func oracleAgrees(t *testing.T, oracle *nomadclient.Client, job *api.Job, drift []string) string {
	t.Helper()
	changes, err := oracle.PlanChanges(context.Background(), job, nil)
	if err != nil {
		return fmt.Sprintf("asking Nomad's diff: %v", err)
	}
	if (len(drift) == 0) != (len(changes) == 0) {
		return fmt.Sprintf("berth's drift %q, Nomad's diff %q", drift, changes)
	}
	if b, n := namedFields(drift), namedFields(changes); !slices.Equal(b, n) {
		return fmt.Sprintf("berth names %q (drift %q), Nomad's diff names %q (%q)", b, drift, n, changes)
	}
	return ""
}

// deterministic reports whether src parses to the same job twice (no
// uuidv4(), timestamp() or the like): only such a job can plan empty.
func deterministic(t *testing.T, src string) bool {
	a, _, errA := jobspec.Parse(jobspec.Spec{Source: src}, testParser(t))
	b, _, errB := jobspec.Parse(jobspec.Spec{Source: src}, testParser(t))
	return errA == nil && errB == nil && reflect.DeepEqual(a, b)
}

// corpusPlaces creates the namespace and node pool job names, when they
// are not Nomad's own, so that the job registers as it is written. They
// stay for the agent's life: corpus tests share them.
func corpusPlaces(t *testing.T, nomad *api.Client, job *api.Job) {
	t.Helper()
	corpusPlacesMu.Lock()
	defer corpusPlacesMu.Unlock()
	if ns := deref(job.Namespace); ns != "" && ns != "default" && !corpusPlacesMade["ns/"+ns] {
		if _, err := nomad.Namespaces().Register(&api.Namespace{Name: ns, Description: "named by a corpus job"}, nil); err != nil {
			t.Fatalf("creating namespace %q: %v", ns, err)
		}
		corpusPlacesMade["ns/"+ns] = true
	}
	if pool := deref(job.NodePool); pool != "" && pool != "default" && pool != "all" && !corpusPlacesMade["pool/"+pool] {
		if _, err := nomad.NodePools().Register(&api.NodePool{Name: pool, Description: "named by a corpus job; no node"}, nil); err != nil {
			t.Fatalf("creating node pool %q: %v", pool, err)
		}
		corpusPlacesMade["pool/"+pool] = true
	}
}

var (
	corpusPlacesMu   sync.Mutex
	corpusPlacesMade = map[string]bool{}
)

// changeThroughAPI changes, in live, one setting want sets, as an operator
// would through Nomad's API: the first task's cpu, an env value, a meta
// value or a group's count, starting with the kind `which` picks (the
// corpus tries every kind). It returns what it changed, "" when want sets
// none of them.
func changeThroughAPI(want, live *api.Job, which int) string {
	wg, lg := want.TaskGroups[0], live.TaskGroups[0]
	wt, lt := wg.Tasks[0], lg.Tasks[0]
	kinds := []func() string{
		func() string {
			if wt.Resources == nil || wt.Resources.CPU == nil {
				return ""
			}
			lt.Resources.CPU = acctest.Ptr(*lt.Resources.CPU + 1)
			return "cpu"
		},
		func() string {
			if len(wt.Env) == 0 {
				return ""
			}
			k := slices.Sorted(maps.Keys(wt.Env))[0]
			lt.Env[k] += "-changed"
			return "env " + k
		},
		func() string {
			if len(want.Meta) == 0 {
				return ""
			}
			k := slices.Sorted(maps.Keys(want.Meta))[0]
			live.Meta[k] += "-changed"
			return "meta " + k
		},
		func() string {
			t := deref(want.Type)
			if wg.Count == nil || wg.Scaling != nil || t == "system" || t == "sysbatch" {
				return ""
			}
			lg.Count = acctest.Ptr(*lg.Count + 1)
			return "count"
		},
	}
	for i := range kinds {
		if what := kinds[(which+i)%len(kinds)](); what != "" {
			return what
		}
	}
	return ""
}

// TestAccJob_driftClassesFollowNomad registers, for each setting Nomad
// 1.10 drops or adds to at registration, a jobspec that sets it, and
// requires it to read back without drift, as Nomad's own diff says (a
// Vault policy under workload identity, a named workload identity beside
// the vault_default Nomad adds, the default identity, the pre-1.8
// disconnect settings); and a change through the API to an identity to be
// named alike by both.
func TestAccJob_driftClassesFollowNomad(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, oracle := acctest.Nomad(t), testOracle(t)
	classes := map[string]string{
		"vault policies": `vault {
        policies = ["app-read"]
      }`,
		"identity": `vault {}
      identity {
        name = "example"
        aud  = ["example.com"]
        ttl  = "1h"
        file = true
      }`,
		"default identity": `identity {
        env = true
      }`,
		"stop_after_client_disconnect": `}
    stop_after_client_disconnect = "15s"
    task "u" {
      driver = "raw_exec"
      config { command = "/bin/true" }`,
		"prevent_reschedule_on_lost": `}
    prevent_reschedule_on_lost = true
    task "u" {
      driver = "raw_exec"
      config { command = "/bin/true" }`,
	}
	for _, class := range slices.Sorted(maps.Keys(classes)) {
		t.Run(strings.ReplaceAll(class, " ", "_"), func(t *testing.T) {
			id := "drift-class-" + acctest.RandomHex(3)
			src := fmt.Sprintf(`job %q {
%s  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      %s
    }
  }
}`, id, unplaceable, classes[class])
			job, _, err := jobspec.Parse(jobspec.Spec{Source: src}, testParser(t))
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _, _ = nomad.Jobs().Deregister(id, true, nil) })
			live, _, err := nomad.Jobs().Info(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			drift := jobspec.Drift(job, live)
			if msg := oracleAgrees(t, oracle, job, drift); msg != "" || len(drift) > 0 {
				t.Fatalf("reads back with drift %q; against Nomad's diff: %s", drift, msg)
			}
			task := live.TaskGroups[0].Tasks[0]
			switch class {
			case "identity":
				for _, wid := range task.Identities {
					if wid.Name == "example" {
						wid.TTL *= 2
					}
				}
			case "default identity":
				task.Identity.Env = false
			default:
				return
			}
			if _, _, err := nomad.Jobs().Register(live, nil); err != nil {
				t.Fatal(err)
			}
			if live, _, err = nomad.Jobs().Info(id, nil); err != nil {
				t.Fatal(err)
			}
			drift = jobspec.Drift(job, live)
			if msg := oracleAgrees(t, oracle, job, drift); msg != "" || len(drift) != 1 {
				t.Errorf("a changed identity: drift %q; against Nomad's diff: %s", drift, msg)
			}
		})
	}
}
