package lease

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/apifields"
)

// TestLeaseFieldsCoverEveryAPIField is the guard of the allow-list: every
// field of api.Job, at any depth, is compared, Nomad's, or filled by Nomad
// with listed values. A field a Nomad upgrade adds fails here until it is
// put in leaseFields.
func TestLeaseFieldsCoverEveryAPIField(t *testing.T) {
	leaves := apifields.JobLeaves()
	if len(leaves) < 500 {
		t.Fatalf("walked %d api.Job fields; the walk is broken", len(leaves))
	}
	uncovered, stale := uncoveredFields(leaseFields)
	for _, f := range uncovered {
		t.Errorf("api.Job field %s is in no list: add it to leaseFields", f)
	}
	for _, p := range stale {
		t.Errorf("leaseFields names %s, which api.Job does not have", p)
	}
}

func TestLeaseFieldsGuardNamesAMissingField(t *testing.T) {
	for _, missing := range []string{"TaskGroups.ShutdownDelay", "TaskGroups.Tasks.KillTimeout", "TaskGroups.Tasks.Templates.Splay"} {
		table := mergeRules(leaseFields)
		delete(table, missing)
		if uncovered, _ := uncoveredFields(table); !slices.Equal(uncovered, []string{missing}) {
			t.Errorf("without %s, uncovered = %q", missing, uncovered)
		}
	}
	table := mergeRules(leaseFields, map[string]fieldRule{"TaskGroups.Nope": exact})
	if _, stale := uncoveredFields(table); !slices.Equal(stale, []string{"TaskGroups.Nope"}) {
		t.Errorf("stale = %q", stale)
	}
}

// A rule that covers a whole block says "berth never writes this": check
// BuildJob writes nothing there, for every kind of lease. Only the job's
// constraints (the node pin) are a block compared whole that berth writes.
func TestLeaseFieldsBlocksBerthNeverWrites(t *testing.T) {
	leases := map[string]Lease{"full": fixture()}
	ref := fixture()
	ref.Reference, ref.Workload.Ports = "parent", []string{"http"}
	leases["reference and ports"] = ref
	for name, l := range leases {
		job := nomadCopy(t, BuildJob(signed(t, l), "", l.CreatedAt), l.CreatedAt)
		written := map[string]bool{}
		var walk func(v reflect.Value, path string)
		walk = func(v reflect.Value, path string) {
			switch v.Kind() {
			case reflect.Pointer:
				if !v.IsNil() {
					walk(v.Elem(), path)
				}
			case reflect.Slice, reflect.Map:
				if v.Type().Elem().Kind() == reflect.Uint8 || !apifields.Composite(v.Type()) {
					return
				}
				for _, e := range valuesOf(v) {
					walk(e, path)
				}
			case reflect.Struct:
				for i := 0; i < v.NumField(); i++ {
					f := v.Type().Field(i)
					p := apifields.JoinPath(path, f.Name)
					if apifields.Composite(f.Type) && !empty(v.Field(i)) {
						written[p] = true
						walk(v.Field(i), p)
					}
				}
			}
		}
		walk(reflect.ValueOf(job).Elem(), "")
		for p, r := range leaseFields {
			if r.kind == fieldExact && written[p] && p != "Constraints" {
				t.Errorf("%s: leaseFields compares block %s whole, but BuildJob writes it; list its fields", name, p)
			}
		}
	}
}

func valuesOf(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	if v.Kind() == reflect.Map {
		for _, k := range v.MapKeys() {
			out = append(out, v.MapIndex(k))
		}
		return out
	}
	for i := 0; i < v.Len(); i++ {
		out = append(out, v.Index(i))
	}
	return out
}

// serverFills adds to job what a Nomad 1.10 server fills in on register
// (seen on a real agent): datacenters, the implicit group constraints,
// each task's default identity, an update block of zeros, the default host
// network of each port.
func serverFills(job *api.Job) {
	job.Datacenters = []string{"*"}
	job.Update = &api.UpdateStrategy{Stagger: new(time.Duration), MaxParallel: new(0), HealthCheck: new(""),
		MinHealthyTime: new(time.Duration), HealthyDeadline: new(time.Duration), ProgressDeadline: new(time.Duration),
		Canary: new(0), AutoRevert: new(false), AutoPromote: new(false)}
	job.Region, job.Status, job.Version = new("global"), new("running"), new(uint64(3))
	job.Priority = new(70) // a cluster's job_default_priority
	for _, g := range job.TaskGroups {
		g.Constraints = append(g.Constraints,
			&api.Constraint{LTarget: "${attr.nomad.service_discovery}", RTarget: "true", Operand: "="},
			&api.Constraint{LTarget: "${attr.nomad.version}", RTarget: ">= 1.7.0-a", Operand: "semver"})
		for _, n := range g.Networks {
			for i := range n.DynamicPorts {
				n.DynamicPorts[i].HostNetwork = "default"
			}
		}
		for _, task := range g.Tasks {
			task.Identity = &api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}}
		}
	}
}

// uncoveredFields returns the api.Job leaves no rule covers (a rule covers
// its subtree), and the rules that name no field.
func uncoveredFields(table map[string]fieldRule) (uncovered, stale []string) {
	return apifields.Uncovered(table, func(string, string, fieldRule) bool { return true })
}
