// Command devagent starts and stops a detached local Nomad agent for
// development; the Makefile's up/down targets use it.
//
//	devagent start -state FILE [-bin PATH] [-data-dir DIR] [-acl] [-minimal-chroot] [-timeout 90s]
//	devagent stop  -state FILE
//	devagent addr  -state FILE
//	devagent env   -state FILE
//
// start prints NOMAD_ADDR=<addr> on stdout; with -acl it also prints
// NOMAD_TOKEN=<management token>. env prints every variable the nomad CLI
// needs to talk to the agent (including the token, if any).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devagent:", strings.TrimPrefix(err.Error(), "devagent: "))
		os.Exit(1)
	}
}

const usage = `usage:
  devagent start -state FILE [-bin PATH] [-data-dir DIR] [-acl] [-minimal-chroot] [-timeout DURATION]
  devagent stop  -state FILE
  devagent addr  -state FILE
  devagent env   -state FILE`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, args := args[0], args[1:]
	fset := flag.NewFlagSet("devagent "+cmd, flag.ContinueOnError)
	fset.SetOutput(stderr)
	state := fset.String("state", "", "state file (required)")
	var name, bin, dataDir *string
	var acl, minimalChroot *bool
	var timeout *time.Duration
	if cmd == "start" {
		name = fset.String("name", devagent.DefaultName, "node name")
		bin = fset.String("bin", "", "nomad binary (default: $NOMAD_BIN, nomad on PATH, then the build cache)")
		dataDir = fset.String("data-dir", "", "agent data dir (default: a temporary dir removed on stop)")
		acl = fset.Bool("acl", false, "enable and bootstrap ACLs; prints NOMAD_TOKEN")
		minimalChroot = fset.Bool("minimal-chroot", false, "give exec tasks a minimal chroot (much faster task start and stop; see devagent.MinimalChrootEnv)")
		timeout = fset.Duration("timeout", devagent.DefaultStartTimeout, "how long to wait for the agent to be ready")
	}
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q\n%s", fset.Args(), usage)
	}
	if *state == "" {
		return errors.New("-state is required\n" + usage)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch cmd {
	case "start":
		o := devagent.Options{Name: *name, Bin: *bin, DataDir: *dataDir, ACL: *acl, Timeout: *timeout}
		if *minimalChroot {
			o.ChrootEnv = devagent.MinimalChrootEnv()
		}
		return start(ctx, *state, o, stdout, stderr)
	case "stop":
		a, err := devagent.Load(*state)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		a.Progress = stderr
		if err := a.Stop(ctx); err != nil {
			return err
		}
		return os.Remove(*state)
	case "addr", "env":
		a, err := devagent.Load(*state)
		if err != nil {
			return err
		}
		if !a.Alive() {
			return fmt.Errorf("agent pid %d from %s is not running", a.PID, *state)
		}
		if cmd == "addr" {
			fmt.Fprintln(stdout, a.Addr)
			return nil
		}
		for _, kv := range a.Env() {
			fmt.Fprintln(stdout, kv)
		}
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}

func start(ctx context.Context, state string, o devagent.Options, stdout, stderr io.Writer) error {
	if prev, err := devagent.Load(state); err == nil {
		if prev.Alive() {
			fmt.Fprintf(stderr, "devagent: agent already running (pid %d, state %s)\n", prev.PID, state)
			printStart(stdout, prev, o.ACL)
			return nil
		}
		// Stale state from an agent that died: clean up after it first.
		fmt.Fprintf(stderr, "devagent: cleaning up after dead agent pid %d from %s\n", prev.PID, state)
		prev.Progress = stderr
		if err := prev.Stop(ctx); err != nil {
			return fmt.Errorf("clean up stale agent from %s: %w", state, err)
		}
		if err := os.Remove(state); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}

	started := time.Now()
	a, err := devagent.Start(ctx, o) // detached: no DieWithParent, own session
	if err != nil {
		return err
	}
	if err := a.Save(state); err != nil {
		_ = a.Stop(context.Background())
		return fmt.Errorf("save state: %w", err)
	}
	fmt.Fprintf(stderr, "devagent: nomad agent ready in %s (pid %d, data dir %s, log %s)\n",
		time.Since(started).Round(100*time.Millisecond), a.PID, a.DataDir, a.LogFile)
	printStart(stdout, a, o.ACL)
	return nil
}

func printStart(w io.Writer, a *devagent.Agent, withToken bool) {
	fmt.Fprintf(w, "NOMAD_ADDR=%s\n", a.Addr)
	if withToken && a.Token != "" {
		fmt.Fprintf(w, "NOMAD_TOKEN=%s\n", a.Token)
	}
}
