package instance

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func withUpdate(s Spec, f func(*Update)) Spec {
	f(&s.Update)
	return s
}

func TestBuildJobUpdateStrategyExtras(t *testing.T) {
	tests := []struct {
		name        string
		spec        Spec
		health      string
		autoPromote bool
		stagger     *time.Duration // group and job level; nil = not sent
	}{
		{"unset: derived from checks", fullSpec(), "checks", true, nil},
		{"unset: derived without checks", minimalSpec(), "task_states", false, nil},
		{"task_states despite checks", withUpdate(fullSpec(), func(u *Update) { u.HealthCheck = ptr("task_states") }), "task_states", true, nil},
		{"manual", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("manual") }), "manual", false, nil},
		{"canaries promoted by hand", withUpdate(fullSpec(), func(u *Update) { u.AutoPromote = ptr(false) }), "checks", false, nil},
		{"stagger", withUpdate(minimalSpec(), func(u *Update) { u.Stagger = ptr(time.Minute) }), "task_states", false, ptr(time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := BuildJob(tt.spec, 1)
			u := job.TaskGroups[0].Update
			if *u.HealthCheck != tt.health || *u.AutoPromote != tt.autoPromote {
				t.Errorf("health_check %q, auto_promote %v; want %q, %v", *u.HealthCheck, *u.AutoPromote, tt.health, tt.autoPromote)
			}
			if !reflect.DeepEqual(u.Stagger, tt.stagger) {
				t.Errorf("group stagger = %v, want %v", u.Stagger, tt.stagger)
			}
			switch {
			case tt.stagger == nil && job.Update != nil:
				t.Errorf("job-level update %+v sent without a stagger", job.Update)
			case tt.stagger != nil && (job.Update == nil || *job.Update.Stagger != *tt.stagger || *job.Update.MaxParallel != tt.spec.Update.MaxParallel):
				t.Errorf("job-level update = %+v, want stagger %s and max_parallel %d", job.Update, *tt.stagger, tt.spec.Update.MaxParallel)
			}
		})
	}
}

func TestRoundTripUpdateStrategyExtras(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{"health checks by task states", withUpdate(fullSpec(), func(u *Update) { u.HealthCheck = ptr("task_states") })},
		{"checks without checks", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("checks") })},
		{"manual health", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("manual") })},
		{"stagger", withUpdate(minimalSpec(), func(u *Update) { u.Stagger = ptr(45 * time.Second) })},
		{"stagger at Nomad's default", withUpdate(minimalSpec(), func(u *Update) { u.Stagger = ptr(DefaultStagger) })},
		{"manual promotion", withUpdate(fullSpec(), func(u *Update) { u.AutoPromote = ptr(false) })},
		{"auto_promote set as derived", withUpdate(fullSpec(), func(u *Update) { u.AutoPromote = ptr(true) })},
		{"auto_promote false without canaries", withUpdate(minimalSpec(), func(u *Update) { u.AutoPromote = ptr(false) })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			got, unsupported := readBack(simulateNomad(t, BuildJob(tt.spec, 1)), tt.spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if want := Normalize(tt.spec); !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s", strings.Join(Diff(want, got), "\n"))
			}
			if d := Diff(tt.spec, got); len(d) > 0 {
				t.Errorf("Diff(input, read back) = %q, want none", d)
			}
		})
	}
}

// TestConfiguredUpdate: what SpecFromJob reads goes into state with the
// values that unset stands for left out, and everything else kept.
func TestConfiguredUpdate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want Update
	}{
		{"defaults left out", fullSpec(), fullSpec().Update},
		{"other values kept", withUpdate(fullSpec(), func(u *Update) {
			u.HealthCheck, u.Stagger, u.AutoPromote = ptr("manual"), ptr(time.Minute), ptr(false)
		}), withUpdate(fullSpec(), func(u *Update) {
			u.HealthCheck, u.Stagger, u.AutoPromote = ptr("manual"), ptr(time.Minute), ptr(false)
		}).Update},
		{"task_states without checks is the default", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("task_states") }),
			minimalSpec().Update},
		// Nomad's default for a jobspec without health_check.
		{"checks without checks is the default too", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("checks") }),
			minimalSpec().Update},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read, _ := SpecFromJob(simulateNomad(t, BuildJob(tt.spec, 1)))
			if got := ConfiguredUpdate(read); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ConfiguredUpdate = %s, want %s", updateText(got), updateText(tt.want))
			}
		})
	}
}

func updateText(u Update) string {
	b, _ := json.Marshal(u) // plain values, durations and pointers to them
	return string(b)
}

func TestSpecFromJobReadsUpdateStrategyChanges(t *testing.T) {
	tests := []struct {
		name   string
		spec   Spec
		mutate func(*api.UpdateStrategy)
		want   []string
	}{
		{"health_check changed in Nomad while unset", fullSpec(), func(u *api.UpdateStrategy) { u.HealthCheck = ptr("manual") },
			[]string{`update.health_check: "checks" -> "manual"`}},
		{"stagger changed in Nomad while unset", fullSpec(), func(u *api.UpdateStrategy) { u.Stagger = ptr(time.Minute) },
			[]string{`update.stagger: 30s -> 1m0s`}},
		{"canaries left for a human in Nomad", fullSpec(), func(u *api.UpdateStrategy) { u.AutoPromote = ptr(false) },
			[]string{`update.auto_promote: true -> false`}},
		{"checks and task_states are one without service checks", minimalSpec(), func(u *api.UpdateStrategy) { u.HealthCheck = ptr("checks") }, nil},
		{"manual without service checks", minimalSpec(), func(u *api.UpdateStrategy) { u.HealthCheck = ptr("manual") },
			[]string{`update.health_check: "task_states" -> "manual"`}},
		{"set health_check changed back", withUpdate(fullSpec(), func(u *Update) { u.HealthCheck = ptr("task_states") }),
			func(u *api.UpdateStrategy) { u.HealthCheck = ptr("checks") },
			[]string{`update.health_check: "task_states" -> "checks"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(tt.spec, 1))
			tt.mutate(job.TaskGroups[0].Update)
			got, unsupported := readBack(job, tt.spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if d := Diff(tt.spec, got); !reflect.DeepEqual(d, tt.want) {
				t.Errorf("Diff = %q, want %q", d, tt.want)
			}
		})
	}
}

func TestValidateUpdateStrategyExtras(t *testing.T) {
	tests := []struct {
		name   string
		spec   Spec
		path   []any
		reject bool
	}{
		{"zero stagger", withUpdate(minimalSpec(), func(u *Update) { u.Stagger = ptr(time.Duration(0)) }), path("update", "stagger"), true},
		{"negative stagger", withUpdate(minimalSpec(), func(u *Update) { u.Stagger = ptr(-time.Second) }), path("update", "stagger"), true},
		{"auto_promote without canaries", withUpdate(minimalSpec(), func(u *Update) { u.AutoPromote = ptr(true) }), path("update", "auto_promote"), true},
		{"auto_promote false without canaries is Nomad's default", withUpdate(minimalSpec(), func(u *Update) { u.AutoPromote = ptr(false) }), nil, false},
		{"manual health with hand-promoted canaries", withUpdate(fullSpec(), func(u *Update) {
			u.HealthCheck, u.AutoPromote = ptr("manual"), ptr(false)
		}), nil, false},
		{"checks without any check", withUpdate(minimalSpec(), func(u *Update) { u.HealthCheck = ptr("checks") }), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Validate(tt.spec)
			if !tt.reject {
				if len(errs) > 0 {
					t.Errorf("errors %+v, want none", errs)
				}
				return
			}
			if len(errs) != 1 || !reflect.DeepEqual(errs[0].Path, tt.path) {
				t.Errorf("errors %+v, want one at %v", errs, tt.path)
			}
		})
	}
}

func TestManualPromotion(t *testing.T) {
	tests := []struct {
		canary      int
		autoPromote *bool
		want        bool
	}{
		{0, nil, false},
		{2, nil, false},
		{2, ptr(true), false},
		{2, ptr(false), true},
		{0, ptr(false), false},
	}
	for _, tt := range tests {
		s := withUpdate(minimalSpec(), func(u *Update) { u.Canary, u.AutoPromote = tt.canary, tt.autoPromote })
		if got := ManualPromotion(s); got != tt.want {
			t.Errorf("canary %d, auto_promote %v: ManualPromotion = %v", tt.canary, tt.autoPromote, got)
		}
		if got := *BuildJob(s, 1).TaskGroups[0].Update.AutoPromote; got != (tt.canary > 0 && !tt.want) && tt.autoPromote == nil {
			t.Errorf("canary %d, auto_promote unset: sent auto_promote %v", tt.canary, got)
		}
	}
}
