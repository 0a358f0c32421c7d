package lease

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/nomad/api"
)

// nodePoolAll is Nomad's built-in pool containing every node. A pinned lease
// uses it so the pin works whatever pool the node is in; with the namespace's
// default pool, a node in another pool could never be chosen.
const nodePoolAll = "all"

// BuildJob builds the batch job to register for l. It does not validate l;
// call Validate first. timerDriver "" means DefaultTimerDriver.
//
// The timer sleeps for what is left of the lease at now, rounded up to whole
// seconds (at least 1, never more than Duration even if now is before
// CreatedAt), so re-registering the job later never extends the lease.
// Registering an already expired lease still yields a 1-second job; callers
// should not.
//
// The group never restarts or reschedules: a failed workload stays failed
// instead of looping, and above all a restarted timer or a rescheduled
// allocation would start a fresh full-length sleep and outlive expires_at.
func BuildJob(l Lease, timerDriver string, now time.Time) *api.Job {
	if timerDriver == "" {
		timerDriver = DefaultTimerDriver
	}
	e := l.effective()

	job := &api.Job{
		ID:        ptr(e.Name),
		Name:      ptr(e.Name),
		Namespace: ptr(e.Namespace),
		Type:      ptr(api.JobTypeBatch),
		Meta:      jobMeta(e),
	}
	if e.NodeID != "" {
		job.Constraints = []*api.Constraint{{LTarget: PinTarget, Operand: "=", RTarget: e.NodeID}}
		job.NodePool = ptr(nodePoolAll)
	}

	group := &api.TaskGroup{
		Name:  ptr(GroupName),
		Count: ptr(1),
		RestartPolicy: &api.RestartPolicy{
			Attempts: ptr(0),
			Mode:     ptr(api.RestartPolicyModeFail),
		},
		ReschedulePolicy: &api.ReschedulePolicy{
			Attempts:  ptr(0),
			Unlimited: ptr(false),
		},
		// Set explicitly (300 for 0) so the signed size does not depend on
		// Nomad's default staying what it is today.
		EphemeralDisk: &api.EphemeralDisk{SizeMB: ptr(e.Workload.Disk)},
		Tasks: []*api.Task{
			buildWorkload(e.Workload),
			buildTimer(timerDriver, TimerSeconds(l, now)),
		},
		Services: []*api.Service{leaseService(e)},
	}
	timer := group.Tasks[1]
	timer.Config = map[string]any{"command": timerShell, "args": []string{"-c", timerScript(e)}}
	timer.Identities = []*api.WorkloadIdentity{resultIdentity()}
	if e.Reference != "" {
		timer.Templates = []*api.Template{referenceTemplate(e)}
	}
	if len(e.Workload.Ports) > 0 {
		ports := make([]api.Port, len(e.Workload.Ports))
		for i, label := range e.Workload.Ports {
			ports[i] = api.Port{Label: label}
		}
		group.Networks = []*api.NetworkResource{{DynamicPorts: ports}}
	}
	job.TaskGroups = []*api.TaskGroup{group}
	return job
}

// TimerSeconds is how long the timer task of a job registered at now sleeps:
// l.Remaining(now) capped at Duration, rounded up, at least 1.
func TimerSeconds(l Lease, now time.Time) int {
	left := min(l.Remaining(now), l.Duration)
	secs := int((left + time.Second - 1) / time.Second)
	return max(1, secs)
}

// IsLeaseJob reports whether job was created for a berth_reservation.
func IsLeaseJob(job *api.Job) bool {
	return job != nil && job.Meta[MetaKind] == KindLease
}

// IsJobOf reports whether job is the one BuildJob made for l: a lease job
// with l's creation time and signature. It recognizes berth's own
// registration when the reply to it was lost.
func IsJobOf(job *api.Job, l Lease) bool {
	return IsLeaseJob(job) && job.Meta[MetaCreatedAt] == stamp(l.CreatedAt) && job.Meta[MetaSignature] == l.Signature &&
		job.Meta[MetaDuration] == l.Duration.String()
}

func jobMeta(l Lease) map[string]string {
	m := map[string]string{
		MetaKind:      KindLease,
		MetaUser:      l.User,
		MetaCreatedAt: stamp(l.CreatedAt),
		MetaDuration:  l.Duration.String(),
		MetaExpiresAt: stamp(l.ExpiresAt()),
		MetaSignature: l.Signature,
	}
	if l.Reference != "" {
		m[MetaReference] = l.Reference
	}
	if l.ReferenceAlloc != "" {
		m[MetaReferenceAlloc] = l.ReferenceAlloc
	}
	if !l.SignedAt.IsZero() {
		m[MetaSignedAt] = signedStamp(l.SignedAt)
	}
	return m
}

func buildWorkload(w Workload) *api.Task {
	config := map[string]any{}
	if w.Image != "" {
		config["image"] = w.Image
	}
	if w.Command != "" {
		config["command"] = w.Command
	}
	if len(w.Args) > 0 {
		config["args"] = slices.Clone(w.Args)
	}
	t := &api.Task{
		Name:      WorkloadTask,
		Driver:    w.Driver,
		Config:    config,
		Resources: &api.Resources{CPU: ptr(w.CPU), MemoryMB: ptr(w.Memory)},
		LogConfig: logConfig(),
	}
	if len(w.Env) > 0 {
		t.Env = maps.Clone(w.Env)
	}
	return t
}

func buildTimer(driver string, secs int) *api.Task {
	return &api.Task{
		Name:   TimerTask,
		Driver: driver,
		// Leader: when this task exits Nomad stops the rest of the group.
		Leader: true,
		Config: map[string]any{
			"command": TimerCommand,
			"args":    []string{strconv.Itoa(secs)},
		},
		Resources: &api.Resources{CPU: ptr(TimerCPU), MemoryMB: ptr(TimerMemoryMB)},
		LogConfig: logConfig(),
	}
}

// logConfig keeps each task's logs under MinDiskMB; see LogFiles.
func logConfig() *api.LogConfig {
	return &api.LogConfig{MaxFiles: ptr(LogFiles), MaxFileSizeMB: ptr(LogFileMB)}
}

func ptr[T any](v T) *T { return &v }
