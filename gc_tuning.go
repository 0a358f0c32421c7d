package main

import (
	"os"
	"runtime/debug"
)

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
