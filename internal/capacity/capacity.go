// Package capacity holds the arithmetic berth uses to describe what a Nomad
// node can still take: what it offers to workloads (allocatable), what
// running work holds (allocated) and what is left (free).
//
// Units follow Nomad: CPU in MHz, memory and disk in MiB. The package has no
// Nomad or Terraform imports so it can be tested with plain tables.
package capacity

import "fmt"

// Resources is an amount of node capacity. Values may be negative as the
// result of a subtraction (a node overcommitted by memory oversubscription,
// or whose agent reserves more than it fingerprinted).
type Resources struct {
	CPU      int64 // MHz
	MemoryMB int64 // MiB
	DiskMB   int64 // MiB
}

// Add returns r + o, field by field.
func (r Resources) Add(o Resources) Resources {
	return Resources{CPU: r.CPU + o.CPU, MemoryMB: r.MemoryMB + o.MemoryMB, DiskMB: r.DiskMB + o.DiskMB}
}

// Sub returns r − o, field by field.
func (r Resources) Sub(o Resources) Resources {
	return Resources{CPU: r.CPU - o.CPU, MemoryMB: r.MemoryMB - o.MemoryMB, DiskMB: r.DiskMB - o.DiskMB}
}

// Covers reports whether r is at least want in every dimension. An exact fit
// counts as covered.
func (r Resources) Covers(want Resources) bool {
	return r.CPU >= want.CPU && r.MemoryMB >= want.MemoryMB && r.DiskMB >= want.DiskMB
}

// IsZero reports whether every dimension is zero.
func (r Resources) IsZero() bool { return r == Resources{} }

// Shortfalls lists, in a fixed order (cpu, memory, disk), the dimensions in
// which r does not cover want. It is empty when r.Covers(want).
func (r Resources) Shortfalls(want Resources) []Dimension {
	var out []Dimension
	for _, d := range Dimensions() {
		if d.Of(r) < d.Of(want) {
			out = append(out, d)
		}
	}
	return out
}

func (r Resources) String() string {
	return fmt.Sprintf("cpu %d MHz, memory %d MiB, disk %d MiB", r.CPU, r.MemoryMB, r.DiskMB)
}

// Dimension names one kind of capacity.
type Dimension string

// The dimensions berth accounts for, in the order messages list them.
const (
	CPU    Dimension = "cpu"
	Memory Dimension = "memory"
	Disk   Dimension = "disk"
)

// Dimensions is every Dimension, in message order.
func Dimensions() []Dimension { return []Dimension{CPU, Memory, Disk} }

// Of returns the amount of d in r.
func (d Dimension) Of(r Resources) int64 {
	switch d {
	case CPU:
		return r.CPU
	case Memory:
		return r.MemoryMB
	case Disk:
		return r.DiskMB
	}
	return 0
}

// Unit is the unit d is counted in.
func (d Dimension) Unit() string {
	if d == CPU {
		return "MHz"
	}
	return "MiB"
}

// Node is the capacity picture of one node.
type Node struct {
	// Total is what the node fingerprinted.
	Total Resources
	// AgentReserved is what the Nomad agent's own `reserved` block keeps back
	// from workloads.
	AgentReserved Resources
	// Allocated is the sum over the node's non-terminal allocations that
	// are not charged to a berth reservation (those are inside Reserved).
	Allocated Resources
	// Reserved is the sum of berth's node reservations on the node.
	Reserved Resources
}

// Allocatable is what the node offers to workloads: total minus what the
// agent reserves for itself.
func (n Node) Allocatable() Resources { return n.Total.Sub(n.AgentReserved) }

// Free is what is left for new work: allocatable minus reserved minus
// allocated. It is negative in a dimension that is overcommitted.
func (n Node) Free() Resources { return n.Allocatable().Sub(n.Reserved).Sub(n.Allocated) }
