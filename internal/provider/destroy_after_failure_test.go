package provider_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// Nothing stuck: after each kind of failed apply berth's checks can
// produce, `terraform destroy` (as a user runs it, with the pre-destroy
// refresh plan that the test framework's own destroy skips) completes and
// leaves nothing of berth in Nomad: no job, hold job, volume, secret
// Variable, node reservation or charge whose name starts with the test's
// prefix (assertNothingInNomad).

// destroyAfterFailure applies config, which must fail with an error
// matching wantErr, then destroys it and checks Nomad. In config, %[1]s is
// the prefix every name starts with and %[2]s a node of the consumer pool.
func destroyAfterFailure(t *testing.T, prefix, config, wantErr string) {
	t.Helper()
	n := acctest.ConsumerFleet(t)
	c := acctest.NewTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	config = fmt.Sprintf(config, prefix, n.A.NodeID, n.Pool)
	c.Init(ctx, config)
	t.Cleanup(func() { acctest.AssertNothingInNomad(t, prefix) })
	_, err := c.Apply(ctx)
	out := c.Out.Take()
	if err == nil {
		t.Fatalf("the apply succeeded; want it to fail with %q:\n%s", wantErr, out)
	}
	if !regexp.MustCompile(wantErr).MatchString(err.Error() + out) {
		t.Fatalf("the apply failed, but not with %q: %v\n%s", wantErr, err, out)
	}
	c.Destroy(ctx)
	acctest.AssertNothingInNomad(t, prefix)
}

// reservationOf is a node reservation of 100 MHz and 64 MiB on the node,
// with no disk.
const reservationOf = `
resource "berth_node_reservation" "r" {
  name    = "%[1]s-r"
  node_id = "%[2]s"
  cpu     = 100
  memory  = 64
}
`

// TestAccDestroy_afterFailedApply: each kind of failed apply berth's checks
// can produce, then the real destroy, then Nomad checked.
func TestAccDestroy_afterFailedApply(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	cases := []struct{ name, prefix, config, wantErr string }{
		// The case of the issue: the instance does not fit the reservation's disk
		// (it has none, and an allocation takes 300 MiB by default), so the apply
		// fails; the destroy must still remove the reservation and its hold job.
		{"budget refusal", "dbud", reservationOf + `
resource "berth_instance" "app" {
  name             = "%[1]s-app"
  node_pool        = "%[3]s"
  node_reservation = berth_node_reservation.r.id
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 100, memory = 64 }
  }
}
`, `(?s)Not enough left in the node reservation.*disk`},
		// A task driver no node has: a warning at plan, refused at apply.
		{"unknown driver", "ddrv", reservationOf + `
resource "berth_instance" "app" {
  name             = "%[1]s-app"
  node_pool        = "%[3]s"
  node_reservation = berth_node_reservation.r.id
  services = {
    app = { driver = "dockr", command = "/bin/sleep", cpu = 50, memory = 32 }
  }
}
`, `(?s)Unknown task driver.*dockr`},
		// A deployment that fails (the task exits at once, nothing restarts it):
		// the instance is in state, tainted, with its charge and its secret
		// Variable; the destroy removes the job, the Variable, the charge and the
		// reservation.
		{"failed deployment", "ddep", `
resource "berth_node_reservation" "r" {
  name    = "%[1]s-r"
  node_id = "%[2]s"
  cpu     = 100
  memory  = 64
  disk    = 300
}

resource "berth_instance" "app" {
  name             = "%[1]s-app"
  node_pool        = "%[3]s"
  node_reservation = berth_node_reservation.r.id
  update           = { min_healthy_time = "1s", healthy_deadline = "2m", progress_deadline = "3m" }
  policies = {
    restart    = { attempts = 0 }
    reschedule = { attempts = 0, unlimited = false }
  }
  services = {
    app = {
      driver = "raw_exec", command = "/bin/sh", args = ["-c", "exit 3"], cpu = 50, memory = 32
      secret_env_wo         = { TOKEN = "s3cr3t" }
      secret_env_wo_version = 1
    }
  }
}
`, `(?s)did not become healthy.*Exit Code: 3`},
		// A batch job whose task fails.
		{"failed batch", "dbat", `
resource "berth_instance" "job" {
  name      = "%[1]s-job"
  type      = "batch"
  node_pool = "%[3]s"
  policies = {
    restart    = { attempts = 0 }
    reschedule = { attempts = 0, unlimited = false }
  }
  services = {
    run = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "exit 4"], cpu = 50, memory = 32 }
  }
}
`, `(?s)Exit Code: 4`},
		// A volume whose plugin the node lacks, charged to a reservation first:
		// the failed create gives the charge back, and the destroy removes the
		// reservation and its hold.
		{"failed volume create", "dvol", `
resource "berth_node_reservation" "r" {
  name    = "%[1]s-r"
  node_id = "%[2]s"
  cpu     = 100
  memory  = 64
  disk    = 100
}

resource "berth_volume" "v" {
  name             = "%[1]s-v"
  node_reservation = berth_node_reservation.r.id
  capacity_max     = "20MiB"
  plugin_id        = "berth-acc-no-such-plugin"
}
`, `(?s)Could not create the volume`},
		// A lease whose workload cannot start, in a reservation.
		{"failed lease workload", "dlea", `
resource "berth_node_reservation" "r" {
  name    = "%[1]s-r"
  node_id = "%[2]s"
  cpu     = 200
  memory  = 128
  disk    = 200
}

resource "berth_reservation" "l" {
  name             = "%[1]s-l"
  duration         = "5m"
  node_reservation = berth_node_reservation.r.id
  workload = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "exit 3"], cpu = 50, memory = 32, disk = 150 }
}
`, `(?s)workload did not start.*Exit Code: 3`},
		// A node reservation that does not fit its node (a warning at plan, refused
		// at apply) beside one that does: the destroy removes the one that was
		// made and its hold.
		{"reservation does not fit", "dfit", reservationOf + `
resource "berth_node_reservation" "big" {
  name       = "%[1]s-big"
  node_id    = "%[2]s"
  cpu        = 10000000
  memory     = 64
  depends_on = [berth_node_reservation.r]
}
`, `(?s)not enough cpu`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			destroyAfterFailure(t, "berth-acc-"+tc.prefix+"-"+acctest.RandomHex(3), tc.config, tc.wantErr)
		})
	}
}
