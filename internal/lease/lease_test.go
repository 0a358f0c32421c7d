package lease

import (
	"strings"
	"testing"
	"time"
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
