package volume

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// volumeErrorProxy forwards to the real agent and fails chosen writes with a 500,
// so the error paths of an update run against a real Nomad.
type volumeErrorProxy struct {
	mu sync.Mutex
	// failVolumeWrite fails the volume create/update call; then, with
	// failLedgerAfter, every ledger write that follows it.
	failVolumeWrite, failLedgerAfter, volumeFailed bool
	// pendingVolumes makes every volume read say "pending", as a plugin
	// that never finishes would.
	pendingVolumes bool
}

func (p *volumeErrorProxy) setPending(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pendingVolumes = on
}

var volumeReadPath = regexp.MustCompile(`^/v1/volume/host/[0-9a-f-]{36}$`)

// rewrite applies pendingVolumes to an answer from Nomad.
func (p *volumeErrorProxy) rewrite(resp *http.Response) error {
	p.mu.Lock()
	pending := p.pendingVolumes
	p.mu.Unlock()
	if !pending || resp.Request.Method != http.MethodGet || !volumeReadPath.MatchString(resp.Request.URL.Path) || resp.StatusCode != 200 {
		return nil
	}
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return err
	}
	_ = resp.Body.Close()
	v["State"] = "pending"
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	resp.Header.Del("Content-Encoding")
	return nil
}

func (p *volumeErrorProxy) arm(volume, ledgerAfter bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failVolumeWrite, p.failLedgerAfter, p.volumeFailed = volume, ledgerAfter, false
}

func (p *volumeErrorProxy) shouldFail(r *http.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case r.Method == http.MethodPut && r.URL.Path == "/v1/volume/host/create" && p.failVolumeWrite:
		p.volumeFailed = true
		return true
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/var/"+nomadclient.LedgerPrefix):
		return p.failLedgerAfter && p.volumeFailed
	}
	return false
}

func startVolumeErrorProxy(t *testing.T) (*volumeErrorProxy, string) {
	t.Helper()
	p := &volumeErrorProxy{}
	return p, acctest.NomadProxy(t, func(w http.ResponseWriter, r *http.Request) bool {
		if p.shouldFail(r) {
			http.Error(w, "injected failure", http.StatusInternalServerError)
			return true
		}
		return false
	}, p.rewrite)
}

// TestAccVolume_failedUpdateChargeRollback grows a volume inside a node
// reservation while Nomad fails the volume update: the charge goes back to
// the old size; when putting it back fails too, the apply says so, with
// the size still charged and what to do. Applying again finishes the
// update with the right charge.
func TestAccVolume_failedUpdateChargeRollback(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	proxy, addr := startVolumeErrorProxy(t)
	node := acctest.MainNode(t, acctest.Nomad(t)).ID
	sfx := acctest.RandomHex(3)
	name, resName := "berth-acc-volchg-"+sfx, "volchg-"+sfx
	cfg := func(capMax string) string {
		return fmt.Sprintf(`
provider "berth" {
  address = %q
}
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
  disk    = 200
}
resource "berth_volume" "v" {
  name             = %q
  node_reservation = berth_node_reservation.r.id
  capacity_max     = %q
}`, addr, resName, node, name, capMax)
	}
	charged := func(wantMiB int64) resource.TestCheckFunc {
		return acctest.CheckLedger(t, node, func(l ledger.Ledger) error {
			got := l.Reservations[resName].Consumers[nomadclient.VolumeConsumer("default", name)].DiskMB
			if got != wantMiB {
				return fmt.Errorf("ledger charges the volume %d MiB, want %d", got, wantMiB)
			}
			return nil
		})
	}
	volumeMax := func(want int64) resource.TestCheckFunc {
		return withVolume(t, func(v *api.HostVolume) error {
			if v.RequestedCapacityMaxBytes != want<<20 {
				return fmt.Errorf("volume capacity_max in Nomad is %d bytes, want %d MiB", v.RequestedCapacityMaxBytes, want)
			}
			return nil
		})
	}
	testVolume(t, name, []resource.TestStep{
		{Config: cfg("50MiB"), Check: resource.ComposeTestCheckFunc(charged(50), volumeMax(50))},
		{
			// The update fails; the charge is put back.
			PreConfig:   func() { proxy.arm(true, false) },
			Config:      cfg("80MiB"),
			ExpectError: regexp.MustCompile(`Could not update the volume`),
		},
		{
			PreConfig:        func() { proxy.arm(false, false) },
			Config:           cfg("50MiB"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}},
			Check:            resource.ComposeTestCheckFunc(charged(50), volumeMax(50)),
		},
		{
			// The update fails and so does putting the charge back:
			// reported, with the size the ledger still holds.
			PreConfig:   func() { proxy.arm(true, true) },
			Config:      cfg("80MiB"),
			ExpectError: regexp.MustCompile(`(?s)Could not restore the volume's charge on its node reservation.*still charges the volume 80 MiB \(the new capacity\) instead of 50 MiB`),
		},
		{
			PreConfig: func() {
				// What the error said: the ledger holds the new size.
				if err := charged(80)(nil); err != nil {
					t.Fatal(err)
				}
				proxy.arm(false, false)
			},
			Config: cfg("80MiB"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionUpdate),
			}},
			// Applying again finishes the update.
			Check: resource.ComposeTestCheckFunc(charged(80), volumeMax(80)),
		},
	})
}
