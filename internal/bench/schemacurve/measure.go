package schemacurve

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Plugins reach Terraform through dev_overrides directories holding the
// driver's own binary under the plugin's name. Started so, the driver is a
// shim: it runs the real plugin from $CURVE_REAL_DIR (for curve, the driver
// again with CURVE_SERVE=1), waits for it and writes the CPU it and the
// shim used to $CURVE_RUSAGE_DIR, so it can be taken off Terraform's (whose
// rusage includes the plugins it waited for).
const (
	envRealDir   = "CURVE_REAL_DIR"
	envRusageDir = "CURVE_RUSAGE_DIR"
	EnvServe     = "CURVE_SERVE"      // set: serve the curve provider
	envTeeStderr = "CURVE_TEE_STDERR" // set: also copy the plugin's stderr to this file
)

// IsShim reports whether the binary was started as a plugin.
func IsShim(argv0 string) bool {
	return strings.HasPrefix(filepath.Base(argv0), "terraform-provider-")
}

// RunShim runs the real plugin named like argv0 and returns its exit code.
func RunShim(argv0 string, args []string) int {
	name := filepath.Base(argv0)
	cmd := exec.Command(filepath.Join(os.Getenv(envRealDir), name), args...)
	cmd.Env = append(os.Environ(), EnvServe+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if file := os.Getenv(envTeeStderr); file != "" {
		// Diagnostics: a copy of what the plugin writes to stderr (its logs).
		if f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			defer f.Close()
			cmd.Stderr = io.MultiWriter(os.Stderr, f)
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "curve shim:", err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var self syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	plugin := cpuOf(cmd.ProcessState)
	shim := time.Duration(self.Utime.Nano() + self.Stime.Nano())
	if dir := os.Getenv(envRusageDir); dir != "" {
		file := filepath.Join(dir, fmt.Sprintf("%s-%d", name, cmd.Process.Pid))
		_ = os.WriteFile(file, fmt.Appendf(nil, "%d %d\n", plugin, shim), 0o644)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

func cpuOf(ps *os.ProcessState) time.Duration { return ps.UserTime() + ps.SystemTime() }

// Sample is the CPU of one Terraform command.
type Sample struct {
	Core   time.Duration // terraform less its plugins and shims
	Plugin time.Duration // the plugins alone
	Exit   int
}

// Env is the environment of the Terraform commands: dev_overrides for the
// named providers (source -> real binary), the shim's directories.
type Env struct {
	Terraform string
	Work      string
	vars      []string
	rusage    string
}

// NewEnv lays out work: a dev_overrides directory per provider holding the
// running binary under the plugin name, the real binaries, and the CLI
// configuration.
func NewEnv(terraform, work string, providers map[string]string) (*Env, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e := &Env{Terraform: terraform, Work: work, rusage: filepath.Join(work, "rusage")}
	real := filepath.Join(work, "real")
	for _, d := range []string{e.rusage, real} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	cfg := "provider_installation {\n  dev_overrides {\n"
	for _, src := range slices.Sorted(maps.Keys(providers)) {
		bin := "terraform-provider-" + src[strings.LastIndex(src, "/")+1:]
		dir := filepath.Join(work, "plugins", strings.ReplaceAll(src, "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		target, err := filepath.Abs(providers[src])
		if err != nil {
			return nil, err
		}
		for _, l := range [][2]string{{self, filepath.Join(dir, bin)}, {target, filepath.Join(real, bin)}} {
			_ = os.Remove(l[1])
			if err := os.Symlink(l[0], l[1]); err != nil {
				return nil, err
			}
		}
		cfg += fmt.Sprintf("    %q = %q\n", src, dir)
	}
	cfg += "  }\n  direct {}\n}\n"
	rc := filepath.Join(work, "terraformrc")
	if err := os.WriteFile(rc, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "CURVE_") && !strings.HasPrefix(kv, "NOMAD_") {
			e.vars = append(e.vars, kv)
		}
	}
	e.vars = append(e.vars, "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		envRealDir+"="+real, envRusageDir+"="+e.rusage)
	return e, nil
}

// Run runs terraform in dir with args and the extra environment, and
// measures it. A non-zero exit is an error unless it is in okExits.
func (e *Env) Run(dir string, extra []string, okExits []int, args ...string) (Sample, error) {
	if _, _, err := e.takeRusage(); err != nil {
		return Sample{}, err
	}
	logf, err := os.Create(filepath.Join(dir, "last.log"))
	if err != nil {
		return Sample{}, err
	}
	defer logf.Close()
	cmd := exec.Command(e.Terraform, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = append(slices.Clone(e.vars), extra...)
	cmd.Stdout, cmd.Stderr = logf, logf
	runErr := cmd.Run()
	s := Sample{}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		s.Exit = exit.ExitCode()
		if slices.Contains(okExits, s.Exit) {
			runErr = nil
		}
	}
	if runErr != nil {
		data, _ := os.ReadFile(logf.Name())
		return s, fmt.Errorf("terraform %s in %s: %w\n%s", args[0], dir, runErr, tailLines(string(data), 20))
	}
	plugin, below, err := e.takeRusage()
	if err != nil {
		return s, err
	}
	s.Plugin = plugin
	s.Core = max(cpuOf(cmd.ProcessState)-plugin-below, 0)
	return s, nil
}

// takeRusage sums and removes the shims' files: the plugins' CPU and the
// shims' own.
func (e *Env) takeRusage() (plugin, shim time.Duration, err error) {
	entries, err := os.ReadDir(e.rusage)
	if err != nil {
		return 0, 0, err
	}
	for _, ent := range entries {
		file := filepath.Join(e.rusage, ent.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			return 0, 0, err
		}
		f := strings.Fields(string(data))
		if len(f) != 2 {
			return 0, 0, fmt.Errorf("%s: %q", file, data)
		}
		p, err1 := strconv.ParseInt(f[0], 10, 64)
		s, err2 := strconv.ParseInt(f[1], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, 0, err
		}
		plugin, shim = plugin+time.Duration(p), shim+time.Duration(s)
		if err := os.Remove(file); err != nil {
			return 0, 0, err
		}
	}
	return plugin, shim, nil
}

func tailLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(len(ls)-n, 0):], "\n")
}

// Median returns the median of ds (the lower middle one for an even count).
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
