package lease

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccLease_resultData: a lease whose workload asks for a port reports,
// once it runs, where it listens (result.address and result.data); the
// test connects there and gets the workload's answer, and the address is
// the one Nomad gave the allocation.
func TestAccLease_resultData(t *testing.T) {
	key, _, name := startLeaseTest(t, "lease-ports")
	cfg := leaseProvider(key) + fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "1h"
  workload = {
    driver  = "raw_exec"
    command = "/usr/bin/perl"
    args    = ["-MIO::Socket::INET", "-e", "$s=IO::Socket::INET->new(LocalAddr=>$ENV{NOMAD_IP_http},LocalPort=>$ENV{NOMAD_PORT_http},Listen=>5,ReuseAddr=>1) or die; while($c=$s->accept){print $c qq(leased\n); close $c}"]
    cpu     = 50
    memory  = 32
    disk    = 150
    ports   = ["http"]
  }
}
`, name)
	nomad := acctest.Nomad(t)
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg},
		{
			// Read again: the workload is running by now (create waited).
			RefreshState: true,
			Check: func(s *terraform.State) error {
				attrs := s.RootModule().Resources[leaseAddr].Primary.Attributes
				at := attrs["result.data.http"]
				if attrs["result.state"] != "ok" || at == "" || !strings.HasPrefix(at, attrs["result.address"]+":") {
					return fmt.Errorf("result state %q, address %q, data.http %q", attrs["result.state"], attrs["result.address"], at)
				}
				alloc, _, err := nomad.Allocations().Info(attrs["result.allocation_id"], nil)
				if err != nil {
					return err
				}
				var want string
				for _, p := range alloc.AllocatedResources.Shared.Ports {
					if p.Label == "http" {
						want = net.JoinHostPort(p.HostIP, fmt.Sprint(p.Value))
					}
				}
				if at != want {
					return fmt.Errorf("result.data.http is %q, Nomad gave the allocation %q", at, want)
				}
				var answer string
				acctest.WaitFor(t, "the workload to answer on "+at, time.Minute, func() (bool, error) {
					conn, err := net.DialTimeout("tcp", at, 5*time.Second)
					if err != nil {
						return false, nil // still starting
					}
					defer conn.Close()
					_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
					answer, err = bufio.NewReader(conn).ReadString('\n')
					return err == nil, nil
				})
				if strings.TrimSpace(answer) != "leased" {
					return fmt.Errorf("the workload at %s answered %q", at, answer)
				}
				return nil
			},
		},
	})
}
