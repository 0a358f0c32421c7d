package instance

import (
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Health check modes of the update strategy (Nomad's
// UpdateStrategyHealthCheck_*).
const (
	HealthCheckChecks     = "checks"
	HealthCheckTaskStates = "task_states"
	HealthCheckManual     = "manual"
)

// HealthChecks lists the update.health_check values, for the schema's
// validator and documentation.
func HealthChecks() []string {
	return []string{HealthCheckChecks, HealthCheckTaskStates, HealthCheckManual}
}

// DefaultStagger is what Nomad 1.10 stores as a group's stagger when none is
// given (api.DefaultUpdateStrategy).
const DefaultStagger = 30 * time.Second

// DerivedHealthCheck is the health check berth sends when update.health_check
// is unset: "checks" when any service has a check, "task_states" otherwise.
func DerivedHealthCheck(s Spec) string {
	if hasChecks(s) {
		return HealthCheckChecks
	}
	return HealthCheckTaskStates
}

// HealthCheckOf is the health check the job of s uses.
func HealthCheckOf(s Spec) string {
	if s.Update.HealthCheck != nil && *s.Update.HealthCheck != "" {
		return *s.Update.HealthCheck
	}
	return DerivedHealthCheck(s)
}

// AutoPromoteOf is whether Nomad promotes the canaries of s by itself: as
// configured, or, when unset, whenever there are canaries (berth's
// behavior before auto_promote existed).
func AutoPromoteOf(u Update) bool {
	if u.AutoPromote != nil {
		return *u.AutoPromote
	}
	return u.Canary > 0
}

// staggerOf is the stagger Nomad keeps for u.
func staggerOf(u Update) time.Duration {
	if u.Stagger != nil {
		return *u.Stagger
	}
	return DefaultStagger
}

// ManualPromotion reports whether an update of s leaves its canaries for
// someone to promote (canary > 0, auto_promote = false).
func ManualPromotion(s Spec) bool {
	return s.Update.Canary > 0 && !AutoPromoteOf(s.Update)
}

// hasChecks reports whether any service of s has a check.
func hasChecks(s Spec) bool {
	for _, svc := range s.Services {
		if svc.Check != nil || hasRegistrationChecks(svc) {
			return true
		}
	}
	return false
}

// canonicalHealthCheck is the health check of s in canonical form: without
// any service check, "checks" decides health exactly as "task_states" does
// (Nomad's allocation health tracker then only has task states to watch),
// and it is what Nomad fills in for a jobspec that sets none, so a job
// written by hand imports without a difference.
func canonicalHealthCheck(s Spec) string {
	hc := HealthCheckOf(s)
	if hc == HealthCheckChecks && !hasChecks(s) {
		return HealthCheckTaskStates
	}
	return hc
}

// normalizeUpdate fills in the update fields whose unset value stands for
// a definite one (the derived health check, Nomad's stagger, berth's
// auto-promotion rule), so an unset field and its value compare equal and
// a change of either in Nomad shows as drift; the health check in
// canonical form.
func normalizeUpdate(s Spec) Update {
	u := s.Update
	u.HealthCheck = ptr(canonicalHealthCheck(s))
	u.Stagger = ptr(staggerOf(u))
	u.AutoPromote = ptr(AutoPromoteOf(u))
	return u
}

// ConfiguredUpdate is s.Update the way a configuration that leaves the
// defaulted fields out reads: health_check, stagger and auto_promote are
// unset (nil) when they hold what unset means. The provider writes a
// job read from Nomad into state with it, so state stays small and an
// import of a job that uses the defaults gives an empty plan.
func ConfiguredUpdate(s Spec) Update {
	u := s.Update
	if u.HealthCheck != nil && canonicalHealthCheck(s) == DerivedHealthCheck(s) {
		u.HealthCheck = nil
	}
	if u.Stagger != nil && *u.Stagger == DefaultStagger {
		u.Stagger = nil
	}
	if u.AutoPromote != nil && *u.AutoPromote == (u.Canary > 0) {
		u.AutoPromote = nil
	}
	return u
}

// buildJobUpdate is the job-level update block: only when a stagger is set.
// Nomad 1.10 keeps stagger and max_parallel at job level (and only when
// max_parallel > 0), and its system scheduler reads them from there
// (scheduler_system.go: job.Update.Stagger, job.Update.Rolling()); the
// group's copy is what SpecFromJob reads back, since Nomad always stores it.
func buildJobUpdate(s Spec) *api.UpdateStrategy {
	if s.Update.Stagger == nil {
		return nil
	}
	return &api.UpdateStrategy{Stagger: ptr(*s.Update.Stagger), MaxParallel: ptr(s.Update.MaxParallel)}
}

// readUpdateExtras reads health_check, stagger and auto_promote from the
// group's update block, as Nomad stores them.
func readUpdateExtras(u *api.UpdateStrategy, out *Update) {
	if hc := deref(u.HealthCheck); hc != "" {
		out.HealthCheck = ptr(hc)
	}
	if st := deref(u.Stagger); st > 0 {
		out.Stagger = ptr(st)
	}
	if u.AutoPromote != nil {
		out.AutoPromote = ptr(*u.AutoPromote)
	}
}

// validateUpdateExtras mirrors the parts of Nomad's UpdateStrategy.Validate
// about stagger and auto_promote.
func (v *validator) validateUpdateExtras(u Update) {
	if u.Stagger != nil && *u.Stagger <= 0 {
		v.add(path("update", "stagger"), "Invalid stagger",
			fmt.Sprintf("stagger is %s; Nomad requires it to be greater than 0. Leave it unset for Nomad's default (%s).", *u.Stagger, DefaultStagger))
	}
	if u.AutoPromote != nil && *u.AutoPromote && u.Canary == 0 {
		v.add(path("update", "auto_promote"), "auto_promote without canaries",
			"auto_promote = true promotes canaries, and canary is 0; Nomad refuses that. Set canary to 1 or more, or remove auto_promote.")
	}
}
