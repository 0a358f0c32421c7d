package capacity

import (
	"reflect"
	"testing"
)

func TestNodeArithmetic(t *testing.T) {
	cases := []struct {
		name            string
		node            Node
		wantAllocatable Resources
		wantFree        Resources
	}{
		{
			name:            "empty node",
			node:            Node{Total: Resources{4000, 8192, 10240}},
			wantAllocatable: Resources{4000, 8192, 10240},
			wantFree:        Resources{4000, 8192, 10240},
		},
		{
			name: "agent reserve and allocations",
			node: Node{
				Total:         Resources{4000, 8192, 10240},
				AgentReserved: Resources{100, 256, 1024},
				Allocated:     Resources{500, 1024, 300},
			},
			wantAllocatable: Resources{3900, 7936, 9216},
			wantFree:        Resources{3400, 6912, 8916},
		},
		{
			name: "berth reservations count against free",
			node: Node{
				Total:     Resources{4000, 8192, 10240},
				Allocated: Resources{500, 0, 0},
				Reserved:  Resources{3000, 4096, 1024},
			},
			wantAllocatable: Resources{4000, 8192, 10240},
			wantFree:        Resources{500, 4096, 9216},
		},
		{
			name: "exactly full",
			node: Node{
				Total:     Resources{1000, 1000, 1000},
				Allocated: Resources{1000, 1000, 1000},
			},
			wantAllocatable: Resources{1000, 1000, 1000},
			wantFree:        Resources{},
		},
		{
			name: "overcommitted memory goes negative rather than hiding it",
			node: Node{
				Total:     Resources{1000, 512, 1000},
				Allocated: Resources{100, 768, 0},
			},
			wantAllocatable: Resources{1000, 512, 1000},
			wantFree:        Resources{900, -256, 1000},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.node.Allocatable(); got != tc.wantAllocatable {
				t.Errorf("Allocatable() = %v, want %v", got, tc.wantAllocatable)
			}
			if got := tc.node.Free(); got != tc.wantFree {
				t.Errorf("Free() = %v, want %v", got, tc.wantFree)
			}
		})
	}
}

func TestCoversAndShortfalls(t *testing.T) {
	cases := []struct {
		name      string
		have      Resources
		want      Resources
		covers    bool
		shortfall []Dimension
	}{
		{"zero request", Resources{}, Resources{}, true, nil},
		{"exact fit is accepted", Resources{500, 256, 100}, Resources{500, 256, 100}, true, nil},
		{"one MHz more is rejected", Resources{500, 256, 100}, Resources{501, 256, 100}, false, []Dimension{CPU}},
		{"memory and disk short", Resources{500, 256, 100}, Resources{1, 257, 101}, false, []Dimension{Memory, Disk}},
		{"negative free covers nothing positive", Resources{-1, 0, 0}, Resources{0, 0, 0}, false, []Dimension{CPU}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.have.Covers(tc.want); got != tc.covers {
				t.Errorf("Covers() = %v, want %v", got, tc.covers)
			}
			if got := tc.have.Shortfalls(tc.want); !reflect.DeepEqual(got, tc.shortfall) {
				t.Errorf("Shortfalls() = %v, want %v", got, tc.shortfall)
			}
		})
	}
}

func TestAddSub(t *testing.T) {
	a := Resources{CPU: 10, MemoryMB: 20, DiskMB: 30}
	b := Resources{CPU: 1, MemoryMB: 2, DiskMB: 3}
	if got := a.Add(b).Sub(b); got != a {
		t.Fatalf("Add then Sub = %v, want %v", got, a)
	}
	if !(Resources{}).IsZero() || a.IsZero() {
		t.Fatal("IsZero wrong")
	}
	if got, want := a.String(), "cpu 10 MHz, memory 20 MiB, disk 30 MiB"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	for _, d := range Dimensions() {
		if d.Unit() == "" {
			t.Fatalf("dimension %s has no unit", d)
		}
	}
}
