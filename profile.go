package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
)

// profileEnv names a directory where the plugin writes a CPU profile
// (cpu-<pid>.pprof) for its whole run, and a heap profile when it stops:
// for finding where a plan's time goes (`make bench`).
const profileEnv = "BERTH_PPROF_DIR"

// startProfile starts CPU profiling when BERTH_PPROF_DIR is set and returns
// the function that stops it and writes the heap profile.
func startProfile() (stop func(), err error) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}, nil
	}
	cpu, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", profileEnv, err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, fmt.Errorf("%s: %w", profileEnv, err)
	}
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		if heap, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid()))); err == nil {
			_ = pprof.WriteHeapProfile(heap)
			heap.Close()
		}
	}, nil
}

// gcPercent is the plugin's GOGC unless the environment sets one. The
// plugin lives for one Terraform command and its heap stays small, while
// the framework allocates heavily for every resource; collecting at 4× the
// live heap instead of 2× spends far less CPU on the collector.
const gcPercent = 400

// memoryLimit is the plugin's soft memory limit unless GOMEMLIMIT sets
// one. GOGC=400 lets a heap grow to five times what is live, which for a
// thousand resources was 460 MiB at peak (make bench GROWTH_NS); under the
// limit the collector runs as often as GOGC says, and near it as often as
// it takes, so a small configuration keeps the cheap GC and a large one
// stops growing five-fold.
const memoryLimit = 192 << 20

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
