package provider_test

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// silentNomad accepts TCP connections and never answers them, like an
// agent that is wedged or behind a proxy holding requests.
func silentNomad(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// timeoutError matches the diagnostic of a request that got no answer
// within request_timeout: the address, what berth was doing, how long.
func timeoutError(addr, doing string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)Nomad at\s+` + regexp.QuoteMeta(addr) + `\s+did\s+not\s+answer\s+within\s+\d+s\s+while\s+berth\s+was\s+doing:\s+` +
		doing + `.*request_timeout`)
}

// TestProvider_requestTimeoutSilentListener: every data source, a node
// reservation import and a plan of a node reservation against a listener
// that never answers end with the timeout diagnostic instead of hanging.
func TestProvider_requestTimeoutSilentListener(t *testing.T) {
	t.Parallel()
	addr := silentNomad(t)
	provider := fmt.Sprintf("provider \"berth\" {\n  address = %q\n  request_timeout = \"2s\"\n}\n", addr)
	step := func(body, doing string) resource.TestStep {
		return resource.TestStep{Config: provider + body, ExpectError: timeoutError(addr, doing)}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(`data "berth_nodes" "all" {}`, `list\s+nodes`),
			step(`data "berth_node" "n" { name = "x" }`, `find\s+node`),
			step(`data "berth_instance" "i" { name = "web" }`, `read\s+job`),
			step(`data "berth_volume" "v" { name = "data" }`, `list\s+volumes|read\s+volume`),
			{
				Config:        provider + "resource \"berth_node_reservation\" \"r\" {\n  name = \"x\"\n  cpu  = 1\n}\n",
				ResourceName:  "berth_node_reservation.r",
				ImportState:   true,
				ImportStateId: "0123abcd/x",
				ExpectError:   timeoutError(addr, `find\s+node`),
			},
		},
	})
}

// TestAccProvider_requestTimeoutStoppedAgent freezes a private Nomad agent
// with SIGSTOP: the kernel still accepts connections, nothing answers. A
// plan that reads a data source fails with the timeout diagnostic; after
// SIGCONT the same configuration works again.
func TestAccProvider_requestTimeoutStoppedAgent(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := "berth-acc-sigstop-" + acctest.RandomHex(3)
	a, err := devagent.Start(ctx, devagent.Options{Name: name, ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
	if err != nil {
		t.Fatalf("starting a private agent: %v", err)
	}
	acctest.TrackAgent(a)
	var stopped bool
	var mu sync.Mutex
	signal := func(sig syscall.Signal) {
		mu.Lock()
		defer mu.Unlock()
		if err := syscall.Kill(a.PID, sig); err != nil {
			t.Fatalf("kill -%d %d: %v", sig, a.PID, err)
		}
		stopped = sig == syscall.SIGSTOP
	}
	t.Cleanup(func() {
		mu.Lock()
		wasStopped := stopped
		mu.Unlock()
		if wasStopped {
			_ = syscall.Kill(a.PID, syscall.SIGCONT)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stopping the private agent: %v", err)
		}
	})
	cfg := fmt.Sprintf(`
provider "berth" {
  address         = %q
  request_timeout = "10s"
}
data "berth_node" "n" { name = %q }
`, a.Addr, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check:  resource.TestCheckResourceAttr("data.berth_node.n", "id", a.NodeID),
			},
			{
				PreConfig:   func() { signal(syscall.SIGSTOP) },
				Config:      cfg,
				ExpectError: timeoutError(a.Addr, `find\s+node`),
			},
			{
				PreConfig: func() { signal(syscall.SIGCONT) },
				Config:    cfg,
				Check:     resource.TestCheckResourceAttr("data.berth_node.n", "status", "ready"),
			},
		},
	})
}
