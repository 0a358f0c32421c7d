package instance

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// policies checks the lifecycle policies the way Nomad 1.10 does
// (nomad/structs/structs.go RestartPolicy.Validate, ReschedulePolicy.Validate,
// MigrateStrategy.Validate, LogConfig.Validate, Task.Validate), on the values
// Nomad will use: a field left unset takes Nomad's default for the job type,
// as Nomad's canonicalization does before it validates. Each policy reports
// at most its first problem, at the attribute the user set that takes part
// in it. Ranges and enumerations of one attribute are the schema's.
func (v *validator) policies(s Spec) {
	jt := effectiveType(s.Type)
	p := s.pol()
	v.restart(p.Restart, jt)
	v.reschedule(p.Reschedule, jt)
	v.migrate(p.Migrate, jt)
	defaultLogsTooBig := false
	for _, name := range sortedKeys(s.Services) {
		v.taskPolicies(s, name, s.Services[name], jt)
		defaultLogsTooBig = defaultLogsTooBig || s.Services[name].pol().Logs == nil
	}
	// Services with Nomad's default logs all exceed a small disk alike: one
	// error, at the disk.
	if d := DefaultLogs(); defaultLogsTooBig && !logsFit(d, s.EphemeralDiskMB()) {
		v.add(path("policies", "ephemeral_disk", "size"), "Logs do not fit on the ephemeral disk",
			fmt.Sprintf("Each service keeps up to %d log files of %d MiB (Nomad's default logs, %d MiB), which must be less than the ephemeral disk (%d MiB); grow ephemeral_disk.size or set smaller logs.",
				*d.MaxFiles, *d.MaxFileSizeMB, *d.MaxFiles**d.MaxFileSizeMB, s.EphemeralDiskMB()))
	}
}

// logsFit reports whether logs (every field set) fit on a disk of diskMB as
// Nomad requires; a disk below Nomad's minimum is the schema's to report.
func logsFit(l Logs, diskMB int) bool {
	files, size := *l.MaxFiles, *l.MaxFileSizeMB
	return diskMB < minEphemeralDiskMB || files < 1 || size < 1 || files*size < diskMB
}

// firstSet returns the path of the first field that is set, else the last
// one: the attribute a problem is reported at.
func firstSet(base string, fields ...struct {
	name string
	set  bool
}) []any {
	for _, f := range fields {
		if f.set {
			return path("policies", base, f.name)
		}
	}
	return path("policies", base, fields[len(fields)-1].name)
}

type field = struct {
	name string
	set  bool
}

func (v *validator) restart(r *Restart, jt string) {
	if r == nil {
		return
	}
	d := DefaultRestart(jt)
	attempts, interval, delay, mode := or(r.Attempts, d.Attempts), or(r.Interval, d.Interval), or(r.Delay, d.Delay), or(r.Mode, d.Mode)
	switch {
	case attempts == 0 && mode != "fail":
		v.add(path("policies", "restart", "mode"), "Invalid restart mode",
			fmt.Sprintf("restart mode %q with 0 attempts is ambiguous; Nomad requires mode \"fail\" when attempts is 0.", mode))
	case interval < minRestartInterval:
		v.add(path("policies", "restart", "interval"), "Invalid restart interval",
			fmt.Sprintf("interval is %s; Nomad requires at least %s.", interval, minRestartInterval))
	case time.Duration(attempts)*delay > interval:
		v.add(firstSet("restart", field{"interval", r.Interval != nil}, field{"delay", r.Delay != nil}, field{"attempts", r.Attempts != nil}),
			"Restart attempts do not fit in the interval",
			fmt.Sprintf("Nomad cannot restart a task %d times in an interval of %s with a delay of %s; lengthen interval or lower delay or attempts.",
				attempts, interval, delay))
	}
}

func (v *validator) reschedule(r *Reschedule, jt string) {
	if r == nil {
		return
	}
	d := DefaultReschedule(jt)
	if d == nil {
		v.add(path("policies", "reschedule"), "Reschedule on a system job",
			"Nomad does not reschedule system jobs (they run one allocation on every eligible node) and refuses a reschedule policy for them; remove reschedule.")
		return
	}
	p := Reschedule{
		Attempts: ptr(or(r.Attempts, d.Attempts)), Interval: ptr(or(r.Interval, d.Interval)), Delay: ptr(or(r.Delay, d.Delay)),
		DelayFunction: ptr(or(r.DelayFunction, d.DelayFunction)), MaxDelay: ptr(or(r.MaxDelay, d.MaxDelay)), Unlimited: ptr(or(r.Unlimited, d.Unlimited)),
	}
	attempts, interval, delay, fn, maxDelay, unlimited := *p.Attempts, *p.Interval, *p.Delay, *p.DelayFunction, *p.MaxDelay, *p.Unlimited
	if attempts <= 0 && !unlimited {
		return // rescheduling is off; Nomad checks nothing else
	}
	at := func(fields ...field) []any { return firstSet("reschedule", fields...) }
	switch {
	case attempts > 0 && unlimited:
		v.add(at(field{"unlimited", r.Unlimited != nil}, field{"attempts", true}), "Ambiguous reschedule policy",
			fmt.Sprintf("attempts = %d limits rescheduling, but unlimited is true (Nomad's default for %s jobs); set unlimited = false, or attempts = 0 for unlimited rescheduling.", attempts, jt))
	case attempts > 0 && interval <= 0:
		v.add(at(field{"interval", true}), "Invalid reschedule interval",
			fmt.Sprintf("With %d attempts the interval they are counted in must be greater than 0.", attempts))
	case delay < minRescheduleDelay:
		v.add(at(field{"delay", true}), "Invalid reschedule delay",
			fmt.Sprintf("delay is %s; Nomad requires at least %s.", delay, minRescheduleDelay))
	case fn != "constant" && maxDelay < minRescheduleDelay:
		v.add(at(field{"max_delay", true}), "Invalid reschedule max_delay",
			fmt.Sprintf("max_delay is %s; with delay_function %q Nomad requires at least %s.", maxDelay, fn, minRescheduleDelay))
	case fn != "constant" && maxDelay < delay:
		v.add(at(field{"max_delay", r.MaxDelay != nil}, field{"delay", true}), "Invalid reschedule max_delay",
			fmt.Sprintf("max_delay (%s) must be at least delay (%s).", maxDelay, delay))
	case !unlimited && interval < minRescheduleInterval:
		v.add(at(field{"interval", true}), "Invalid reschedule interval",
			fmt.Sprintf("interval is %s; Nomad requires at least %s when attempts are limited.", interval, minRescheduleInterval))
	case !unlimited:
		if ok, possible, recommended := viableAttempts(p); !ok {
			v.add(at(field{"interval", r.Interval != nil}, field{"attempts", true}), "Reschedule attempts do not fit in the interval",
				fmt.Sprintf("Nomad can only make %d of the %d attempts in %s with delay %s and delay_function %q; set the interval to at least %s.",
					possible, attempts, interval, delay, fn, recommended.Round(time.Second)))
		}
	}
}

// viableAttempts is Nomad's ReschedulePolicy.viableAttempts: whether the
// attempts fit into the interval given the delays, how many do, and the
// interval that would fit them all. p has every field set.
func viableAttempts(p Reschedule) (bool, int, time.Duration) {
	attempts, interval, delay, maxDelay := *p.Attempts, *p.Interval, *p.Delay, *p.MaxDelay
	possible, recommended, ok := 0, time.Duration(0), true
	switch *p.DelayFunction {
	case "constant":
		recommended = time.Duration(attempts) * delay
		if interval < recommended {
			possible, ok = int(interval/delay), false
		}
	case "exponential":
		for i := range attempts {
			next := time.Duration(math.Pow(2, float64(i))) * delay
			if next > maxDelay {
				next = maxDelay
				recommended += next
			} else {
				recommended = next
			}
			if recommended < interval {
				possible++
			}
		}
		ok = possible >= attempts
	case "fibonacci":
		slots := []time.Duration{delay, delay}
		ceiling := false
		for i := 2; i < attempts; i++ {
			var next time.Duration
			if ceiling {
				next = slots[i-1] + maxDelay
			} else if next = slots[i-1] + slots[i-2]; next > maxDelay {
				next, ceiling = maxDelay, true
			}
			slots = append(slots, next)
		}
		recommended = slots[len(slots)-1]
		if interval < recommended {
			ok = false
			for i, s := range slots {
				if s > interval {
					possible = i
					break
				}
			}
		}
	default:
		return false, 0, 0
	}
	return ok, max(possible, 0), recommended
}

func (v *validator) migrate(m *Migrate, jt string) {
	if m == nil {
		return
	}
	if jt != jobTypeService {
		v.add(path("policies", "migrate"), "Migrate on a "+jt+" job",
			fmt.Sprintf("Nomad allows a migrate strategy only on service jobs and refuses it on %s jobs; remove migrate.", jt))
		return
	}
	d := DefaultMigrate(jt)
	minHealthy, deadline := or(m.MinHealthyTime, d.MinHealthyTime), or(m.HealthyDeadline, d.HealthyDeadline)
	switch {
	case minHealthy < 0:
		v.add(path("policies", "migrate", "min_healthy_time"), "Invalid migrate min_healthy_time",
			fmt.Sprintf("min_healthy_time is %s; it must be 0 or more.", minHealthy))
	case deadline < 0:
		v.add(path("policies", "migrate", "healthy_deadline"), "Invalid migrate healthy_deadline",
			fmt.Sprintf("healthy_deadline is %s; it must be 0 or more.", deadline))
	case minHealthy > deadline:
		v.add(firstSet("migrate", field{"min_healthy_time", m.MinHealthyTime != nil}, field{"healthy_deadline", true}),
			"Invalid migrate min_healthy_time",
			fmt.Sprintf("min_healthy_time (%s) must not be longer than healthy_deadline (%s).", minHealthy, deadline))
	}
}

func (v *validator) taskPolicies(s Spec, name string, svc Service, jt string) {
	at := func(elems ...any) []any { return append(path("services", name, "policies"), elems...) }
	p := svc.pol()
	for _, k := range sortedKeys(p.Meta) {
		if strings.HasPrefix(k, MetaPrefix) {
			v.add(at("meta", k), "Reserved meta key",
				fmt.Sprintf("task meta keys starting with %q are reserved for berth's own bookkeeping; rename %q.", MetaPrefix, k))
		}
	}
	kill := DefaultKillTimeout
	if p.KillTimeout != nil {
		kill = *p.KillTimeout
	}
	switch progress := s.Update.ProgressDeadline; {
	case kill < 0:
		v.add(at("kill_timeout"), "Invalid kill_timeout",
			fmt.Sprintf("kill_timeout is %s; it must be 0 or more.", kill))
	case jt == jobTypeService && progress > 0 && kill > progress:
		where := path("update", "progress_deadline")
		if p.KillTimeout != nil {
			where = at("kill_timeout")
		}
		v.add(where, "kill_timeout longer than progress_deadline",
			fmt.Sprintf("Service %q may take %s to stop, longer than the update's progress_deadline (%s); Nomad refuses that. Shorten kill_timeout or lengthen progress_deadline.",
				name, kill, progress))
	}
	if p.ShutdownDelay != nil && *p.ShutdownDelay < 0 {
		v.add(at("shutdown_delay"), "Invalid shutdown_delay",
			fmt.Sprintf("shutdown_delay is %s; it must be 0 or more.", *p.ShutdownDelay))
	}
	if p.Logs != nil {
		d := DefaultLogs()
		logs := Logs{MaxFiles: ptr(or(p.Logs.MaxFiles, d.MaxFiles)), MaxFileSizeMB: ptr(or(p.Logs.MaxFileSizeMB, d.MaxFileSizeMB))}
		if !logsFit(logs, s.EphemeralDiskMB()) {
			files, size := *logs.MaxFiles, *logs.MaxFileSizeMB
			v.add(at("logs"), "Logs do not fit on the ephemeral disk",
				fmt.Sprintf("Service %q keeps up to %d log files of %d MiB (%d MiB), which must be less than the ephemeral disk (%d MiB); lower max_files or max_file_size_mb, or grow ephemeral_disk.size.",
					name, files, size, files*size, s.EphemeralDiskMB()))
		}
	}
}

// or returns *p, or *def when p is nil.
func or[T any](p, def *T) T {
	if p != nil {
		return *p
	}
	return deref(def)
}
