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
// one. GOGC=400 lets a heap grow to five times what is live, and the
// framework allocates about 1 MiB per resource in a plan and 2–4 MiB in an
// apply, nearly all of it garbage, so the heap grows to the limit before
// each collection: about 200 MiB at 1,000 resources under an earlier
// 192 MiB. Under the limit the collector runs as often as GOGC says, and
// near it as often as it takes. At 1,000 berth_job resources (make bench
// GROWTH=1 N=1000, 2026-11-29) 96 MiB kept the apply's plugin CPU and wall
// time unchanged with a peak of about 115 MiB; 64 MiB gave a peak of about
// 95 MiB for 2.4 times the plugin CPU and a 16% slower apply, since about
// 45 MiB stays live in an apply at parallelism 10 (values in flight).
const memoryLimit = 96 << 20

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
