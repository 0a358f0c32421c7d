package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A plugin shim measures the CPU a provider plugin uses. The bench links
// its own binary into each dev_overrides directory under the plugin's name;
// Terraform starts it like the plugin, and it starts the real binary with
// the same arguments, environment and standard streams (so go-plugin's
// handshake goes straight to Terraform), waits for it, and writes the
// plugin's user and system CPU and its peak resident memory to a file in
// the rusage directory. The peak is the kernel's high-water mark of the
// plugin's resident set (ru_maxrss from wait4, the figure /proc/<pid>/status
// shows as VmHWM), so it is exact without sampling: the shim is the
// plugin's parent and reaps it.
const (
	envRealDir   = "BERTH_BENCH_REAL_DIR"   // directory holding the real plugin binaries
	envRusageDir = "BERTH_BENCH_RUSAGE_DIR" // where each plugin process writes its CPU
)

// IsShim reports whether the running binary was started as a plugin.
func IsShim(argv0 string) bool {
	return strings.HasPrefix(filepath.Base(argv0), "terraform-provider-")
}

// RunShim runs the real plugin named like argv0 and returns its exit code.
func RunShim(argv0 string, args []string) int {
	realDir, rusageDir := os.Getenv(envRealDir), os.Getenv(envRusageDir)
	if realDir == "" {
		fmt.Fprintf(os.Stderr, "bench shim: %s is not set\n", envRealDir)
		return 1
	}
	name := filepath.Base(argv0)
	cmd := exec.Command(filepath.Join(realDir, name), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "bench shim: %v\n", err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	if rusageDir != "" && cmd.ProcessState != nil {
		u, s := cpuOf(cmd.ProcessState)
		line := fmt.Sprintf("%d %d %d\n", u.Nanoseconds(), s.Nanoseconds(), peakRSS(cmd.ProcessState))
		file := filepath.Join(rusageDir, fmt.Sprintf("%s-%d", name, cmd.Process.Pid))
		if werr := os.WriteFile(file, []byte(line), 0o644); werr != nil {
			fmt.Fprintf(os.Stderr, "bench shim: %v\n", werr)
		}
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

// cpuOf returns the user and system CPU of a finished process, including
// its children that it waited for.
func cpuOf(ps *os.ProcessState) (user, sys time.Duration) {
	return ps.UserTime(), ps.SystemTime()
}

// peakRSS is the peak resident set of a finished process, in bytes (0 when
// the platform does not say). Linux reports ru_maxrss in KiB.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// pluginUsage sums the CPU and takes the largest peak memory of the usage
// files in dir (one per plugin process a command started), and removes
// them. Terraform starts a plugin more than once per command (to read its
// schema, then to plan or apply), so the figure is the peak of the largest
// plugin process, not a sum over processes.
func pluginUsage(dir string) (user, sys time.Duration, peak int64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, e := range entries {
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			return 0, 0, 0, err
		}
		f := strings.Fields(string(data))
		if len(f) != 3 {
			return 0, 0, 0, fmt.Errorf("%s: want three numbers, got %q", file, data)
		}
		u, err1 := strconv.ParseInt(f[0], 10, 64)
		s, err2 := strconv.ParseInt(f[1], 10, 64)
		m, err3 := strconv.ParseInt(f[2], 10, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, 0, 0, fmt.Errorf("%s: %w", file, err)
		}
		user += time.Duration(u)
		sys += time.Duration(s)
		peak = max(peak, m)
		if err := os.Remove(file); err != nil {
			return 0, 0, 0, err
		}
	}
	return user, sys, peak, nil
}
