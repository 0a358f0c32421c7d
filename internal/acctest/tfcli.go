package acctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// TFCLI drives the real Terraform CLI in a working directory of its own
// against the provider served from this test process (the way
// terraform-plugin-testing does, through TF_REATTACH_PROVIDERS). Fault
// tests use it instead of resource.Test because they run an apply in the
// background, break Nomad under it and accept either outcome of that apply,
// which a TestStep cannot express.
type TFCLI struct {
	t        *testing.T
	TF       *tfexec.Terraform
	Dir      string
	Reattach tfexec.ReattachInfo
	Out      *lockedBuffer
}

// berthProviderAddress is where the CLI looks for berth: the registry host
// follows TF_ACC_PROVIDER_HOST as terraform-plugin-testing does
// (registry.opentofu.org for OpenTofu).
func berthProviderAddress() string {
	host := os.Getenv("TF_ACC_PROVIDER_HOST")
	if host == "" {
		host = "registry.terraform.io"
	}
	return host + "/hashicorp/berth"
}

func NewTFCLI(t *testing.T) *TFCLI {
	t.Helper()
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Fatalf("the terraform CLI is not on PATH (or TF_ACC_TERRAFORM_PATH): %v", err)
		}
	}
	dir := t.TempDir()
	tf, err := tfexec.NewTerraform(dir, bin)
	if err != nil {
		t.Fatal(err)
	}
	c := &TFCLI{t: t, TF: tf, Dir: dir, Out: &lockedBuffer{}}
	tf.SetStdout(c.Out)
	tf.SetStderr(c.Out)

	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	serveErr := make(chan error, 1)
	server, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		serveErr <- tf6server.Serve(berthProviderAddress(), func() tfprotov6.ProviderServer { return server },
			tf6server.WithDebug(ctx, cfgCh, closeCh),
			tf6server.WithLoggingSink(t),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()))
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-cfgCh:
	case err := <-serveErr:
		cancel()
		t.Fatalf("serving the provider: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start within 30s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-closeCh:
		case <-time.After(10 * time.Second):
			t.Log("the provider server did not stop within 10s")
		}
	})
	c.Reattach = tfexec.ReattachInfo{berthProviderAddress(): tfexec.ReattachConfig{
		Protocol: string(rc.Protocol), ProtocolVersion: rc.ProtocolVersion, Pid: rc.Pid, Test: rc.Test,
		Addr: tfexec.ReattachConfigAddr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}}
	return c
}

// Write replaces the configuration.
func (c *TFCLI) Write(config string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.Dir, "main.tf"), []byte(config), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// Init writes config and runs terraform init.
func (c *TFCLI) Init(ctx context.Context, config string) {
	c.t.Helper()
	c.Write(config)
	if err := c.TF.Init(ctx, tfexec.Reattach(c.Reattach)); err != nil {
		c.t.Fatalf("terraform init: %v\n%s", err, c.Out.Take())
	}
	c.Out.Take()
}

// Apply runs terraform apply on the written configuration and returns its
// error (with Terraform's output) and how long it took.
func (c *TFCLI) Apply(ctx context.Context) (time.Duration, error) {
	begin := time.Now()
	err := c.TF.Apply(ctx, tfexec.Reattach(c.Reattach))
	return time.Since(begin), err
}

// MustApply applies and fails the test on error.
func (c *TFCLI) MustApply(ctx context.Context, what string) {
	c.t.Helper()
	took, err := c.Apply(ctx)
	out := c.Out.Take()
	if err != nil {
		c.t.Fatalf("%s: terraform apply failed after %s: %v\n%s", what, took.Round(time.Second), err, out)
	}
	c.t.Logf("%s: terraform apply succeeded in %s", what, took.Round(100*time.Millisecond))
}

// ExpectEmptyPlan fails the test unless terraform plan shows no change.
func (c *TFCLI) ExpectEmptyPlan(ctx context.Context, what string) {
	c.t.Helper()
	c.expectPlan(ctx, what, false)
}

// ExpectNoResourceChanges is expectEmptyPlan for configurations whose
// outputs describe the cluster (the quickstart lists its nodes, which other
// tests add): outputs may change, resources may not.
func (c *TFCLI) ExpectNoResourceChanges(ctx context.Context, what string) {
	c.t.Helper()
	c.expectPlan(ctx, what, true)
}

func (c *TFCLI) expectPlan(ctx context.Context, what string, outputsMayChange bool) {
	c.t.Helper()
	planFile := filepath.Join(c.Dir, "check.tfplan")
	changes, err := c.TF.Plan(ctx, tfexec.Reattach(c.Reattach), tfexec.Out(planFile))
	out := c.Out.Take()
	if err != nil {
		c.t.Fatalf("%s: terraform plan failed: %v\n%s", what, err, out)
	}
	if !changes {
		return
	}
	plan, err := c.TF.ShowPlanFile(ctx, planFile, tfexec.Reattach(c.Reattach))
	if err != nil {
		c.t.Fatalf("%s: reading the plan: %v\n%s", what, err, out)
	}
	var changed []string
	for _, rc := range plan.ResourceChanges {
		if rc.Change != nil && !rc.Change.Actions.NoOp() {
			changed = append(changed, fmt.Sprintf("%s: %v", rc.Address, rc.Change.Actions))
		}
	}
	if outputsMayChange && len(changed) == 0 {
		return
	}
	c.t.Fatalf("%s: the plan is not empty: %v\n%s", what, changed, out)
}

// Destroy runs terraform destroy and fails the test on error.
func (c *TFCLI) Destroy(ctx context.Context) {
	c.t.Helper()
	if err := c.TF.Destroy(ctx, tfexec.Reattach(c.Reattach)); err != nil {
		c.t.Fatalf("terraform destroy: %v\n%s", err, c.Out.Take())
	}
	c.Out.Take()
}

// State returns the resources in state by address.
func (c *TFCLI) State(ctx context.Context) map[string]*tfjson.StateResource {
	c.t.Helper()
	st, err := c.TF.Show(ctx, tfexec.Reattach(c.Reattach))
	if err != nil {
		c.t.Fatalf("terraform show: %v", err)
	}
	out := map[string]*tfjson.StateResource{}
	if st.Values != nil && st.Values.RootModule != nil {
		for _, r := range st.Values.RootModule.Resources {
			out[r.Address] = r
		}
	}
	return out
}

// applyResult is the outcome of an apply run in the background.
type applyResult struct {
	Err        error
	took       time.Duration
	AfterFault time.Duration // how long the apply ran on after the fault
	Output     string
}

// ApplyWithFault starts terraform apply, waits until trigger reports that
// the apply has reached the point to break, runs fault, and returns the
// apply's outcome whatever it is. It fails the test if the apply ends
// before the trigger fires (the fault would not hit an apply in flight).
func (c *TFCLI) ApplyWithFault(ctx context.Context, what string, trigger func() (bool, error), fault func() error) applyResult {
	c.t.Helper()
	done := make(chan applyResult, 1)
	go func() {
		took, err := c.Apply(ctx)
		done <- applyResult{Err: err, took: took, Output: c.Out.Take()}
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for fired := false; !fired; {
		select {
		case r := <-done:
			c.t.Fatalf("%s: the apply ended before the fault could be injected (last trigger error %v): %v\n%s", what, lastErr, r.Err, r.Output)
		case <-ctx.Done():
			c.t.Fatalf("%s: timed out waiting for the fault trigger (last error %v)", what, lastErr)
		case <-tick.C:
			fired, lastErr = trigger()
		}
	}
	if err := fault(); err != nil {
		c.t.Fatalf("%s: injecting the fault: %v", what, err)
	}
	faultAt := time.Now()
	select {
	case r := <-done:
		r.AfterFault = time.Since(faultAt)
		if r.Err != nil {
			c.t.Logf("%s: the interrupted apply failed after %s:\n%s", what, r.took.Round(100*time.Millisecond), DiagnosticsOf(r.Output))
		} else {
			c.t.Logf("%s: the interrupted apply succeeded in %s", what, r.took.Round(100*time.Millisecond))
		}
		return r
	case <-ctx.Done():
		c.t.Fatalf("%s: the interrupted apply did not end", what)
	}
	return applyResult{}
}

// DiagnosticsOf returns Terraform's error diagnostics from its output,
// without the plan and progress lines before them.
func DiagnosticsOf(output string) string {
	i := strings.Index(output, "Error: ")
	if i < 0 {
		return output
	}
	return output[i:]
}

// lockedBuffer collects Terraform's output from concurrent commands.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Take returns and clears what was written.
func (l *lockedBuffer) Take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return strings.TrimSpace(s)
}
