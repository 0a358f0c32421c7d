package main

import (
	"fmt"
	"os"
	"path/filepath"
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
