package lease

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAccLease_settingsBerthNeverWrites registers, through Nomad's API, each
// setting that kept a verified lease running past its end before the
// reader became an allow-list (issue 33): each reads verified = false, the
// next plan replaces the lease, and after the apply Nomad holds a clean
// lease again. The lease refers to another, so its timer has the template
// whose options are tampered with too; the tamper steps reuse it, since
// each apply leaves a clean lease for the next.
func TestAccLease_settingsBerthNeverWrites(t *testing.T) {
	key, pub, parent := startLeaseTest(t, "lease-allow-p")
	child := "berth-acc-lease-allow-c-" + acctest.RandomHex(3)
	const childAddr = "berth_reservation.child"
	cfg := leaseProvider(key) + leaseResourceConfig("parent", parent, "1h", "") +
		leaseResourceConfig("child", child, "1h", "reference = berth_reservation.parent.id")
	group := func(j *api.Job) *api.TaskGroup { return j.TaskGroups[0] }
	timer := func(j *api.Job) *api.Task { return leaseTask(j, lease.TimerTask) }
	tampers := []struct {
		name   string
		tamper func(*api.Job)
	}{
		{"group shutdown_delay", func(j *api.Job) { group(j).ShutdownDelay = new(8760 * time.Hour) }},
		{"workload shutdown_delay", func(j *api.Job) { leaseTask(j, lease.WorkloadTask).ShutdownDelay = 8760 * time.Hour }},
		{"timer env", func(j *api.Job) { timer(j).Env = map[string]string{"SNEAKY": "1"} }},
		{"timer kill_timeout", func(j *api.Job) { timer(j).KillTimeout = new(8760 * time.Hour) }},
		{"timer driver", func(j *api.Job) { timer(j).Driver = "docker" }},
		{"timer extra config key", func(j *api.Job) { timer(j).Config["pid_mode"] = "host" }},
		{"template splay", func(j *api.Job) { timer(j).Templates[0].Splay = new(8760 * time.Hour) }},
		{"template once", func(j *api.Job) { timer(j).Templates[0].Once = new(true) }},
		{"periodic", func(j *api.Job) {
			// Nomad refuses to make a job periodic in place: a tamperer
			// purges it and registers it again.
			if _, _, err := acctest.Nomad(t).Jobs().Deregister(*j.ID, true, nil); err != nil {
				t.Fatalf("purging %s: %v", *j.ID, err)
			}
			j.Periodic = &api.PeriodicConfig{Enabled: new(true), SpecType: new("cron"), Spec: new("0 0 1 1 *")}
		}},
		{"extra identity", func(j *api.Job) {
			timer(j).Identities = append(timer(j).Identities, &api.WorkloadIdentity{Name: "extra", Audience: []string{"elsewhere"}, File: true})
		}},
	}
	steps := []resource.TestStep{{Config: cfg, Check: checkLeaseVerifies(t, child, pub)}}
	for _, tt := range tampers {
		tamper := tt.tamper
		steps = append(steps, tamperStepsAt(t, childAddr, child, pub, cfg, func(j *api.Job) {
			t.Logf("tampering: %s", tt.name)
			tamper(j)
		})...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			acctest.CheckInstanceDestroyed(t, child), acctest.CheckInstanceDestroyed(t, parent)),
		Steps: steps,
	})
}
