package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

func TestExpiry(t *testing.T) {
	l := fixture() // 2025-01-02T03:04:05Z + 2h
	exp := time.Date(2025, 1, 2, 5, 4, 5, 0, time.UTC)
	if !l.ExpiresAt().Equal(exp) {
		t.Fatalf("ExpiresAt = %s, want %s", l.ExpiresAt(), exp)
	}
	tests := []struct {
		name      string
		now       time.Time
		remaining time.Duration
		expired   bool
	}{
		{"before creation", l.CreatedAt.Add(-time.Minute), 2*time.Hour + time.Minute, false},
		{"at creation", l.CreatedAt, 2 * time.Hour, false},
		{"midway", l.CreatedAt.Add(30 * time.Minute), 90 * time.Minute, false},
		{"1ns before expiry", exp.Add(-time.Nanosecond), time.Nanosecond, false},
		{"at expiry", exp, 0, true},
		{"after expiry clamps at 0", exp.Add(time.Hour), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Remaining(tt.now); got != tt.remaining {
				t.Errorf("Remaining = %s, want %s", got, tt.remaining)
			}
			if got := l.Expired(tt.now); got != tt.expired {
				t.Errorf("Expired = %v, want %v", got, tt.expired)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Lease)
		want   string // "" = valid
	}{
		{"valid", func(*Lease) {}, ""},
		{"valid minimal", func(l *Lease) {
			l.Namespace, l.NodeID = "", ""
			l.Workload = Workload{Driver: "exec", Command: "/bin/true", CPU: MinCPU, Memory: MinMemoryMB}
		}, ""},
		{"smallest disk", func(l *Lease) { l.Workload.Disk = MinDiskMB }, ""},
		{"no name", func(l *Lease) { l.Name = "" }, "name must not be empty"},
		{"no created_at", func(l *Lease) { l.CreatedAt = time.Time{} }, "created_at must be set"},
		{"no duration", func(l *Lease) { l.Duration = 0 }, "duration must be positive"},
		{"fractional duration", func(l *Lease) { l.Duration = time.Minute + time.Millisecond }, "whole seconds"},
		{"no driver", func(l *Lease) { l.Workload.Driver = "" }, "workload.driver"},
		{"no cpu", func(l *Lease) { l.Workload.CPU = 0 }, "workload.cpu must be at least 1"},
		{"tiny memory", func(l *Lease) { l.Workload.Memory = 9 }, "workload.memory must be at least 10"},
		{"disk at log size", func(l *Lease) { l.Workload.Disk = LogFiles * LogFileMB }, "workload.disk"},
		{"negative disk", func(l *Lease) { l.Workload.Disk = -1 }, "workload.disk"},
		{"empty env key", func(l *Lease) { l.Workload.Env = map[string]string{"": "x"} }, "env keys"},
		{"invalid UTF-8", func(l *Lease) { l.Workload.Image = "\xff" }, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			tt.mutate(&l)
			err := l.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("err = %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

func TestFootprint(t *testing.T) {
	tests := []struct {
		name string
		w    Workload
		want capacity.Resources
	}{
		{"workload plus timer", Workload{CPU: 50, Memory: 32, Disk: 150},
			capacity.Resources{CPU: 50 + TimerCPU, MemoryMB: 32 + TimerMemoryMB, DiskMB: 150}},
		{"disk 0 is Nomad's default, shared by both tasks", Workload{CPU: 100, Memory: 300},
			capacity.Resources{CPU: 100 + TimerCPU, MemoryMB: 300 + TimerMemoryMB, DiskMB: DefaultDiskMB}},
		{"the smallest workload still carries the timer", Workload{CPU: MinCPU, Memory: MinMemoryMB, Disk: MinDiskMB},
			capacity.Resources{CPU: MinCPU + TimerCPU, MemoryMB: MinMemoryMB + TimerMemoryMB, DiskMB: MinDiskMB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			l.Workload.CPU, l.Workload.Memory, l.Workload.Disk = tt.w.CPU, tt.w.Memory, tt.w.Disk
			if got := l.Footprint(); got != tt.want {
				t.Errorf("Footprint = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestFootprintMatchesJob: the footprint is what BuildJob asks Nomad for,
// task by task, so the charge and the job cannot drift apart.
func TestFootprintMatchesJob(t *testing.T) {
	l := fixture()
	job := BuildJob(l, "", l.CreatedAt)
	var got capacity.Resources
	for _, task := range job.TaskGroups[0].Tasks {
		got.CPU += int64(*task.Resources.CPU)
		got.MemoryMB += int64(*task.Resources.MemoryMB)
	}
	got.DiskMB = int64(*job.TaskGroups[0].EphemeralDisk.SizeMB)
	if want := l.Footprint(); got != want {
		t.Errorf("the job asks for %+v, Footprint says %+v", got, want)
	}
}
