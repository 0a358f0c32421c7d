package instance

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	withWeb := func(f func(*Service)) Spec {
		s := fullSpec()
		svc := s.Services["web"]
		f(&svc)
		s.Services["web"] = svc
		return s
	}
	tests := []struct {
		name string
		a, b Spec
		want []string
	}{
		{"identical", fullSpec(), fullSpec(), nil},
		{"nil vs empty and defaults are equal", minimalSpec(), func() Spec {
			s := minimalSpec()
			s.Meta, s.Namespace, s.NodePool, s.Datacenters = map[string]string{}, "default", "default", nil
			return s
		}(), nil},
		{"config numbers compare by value", withWeb(func(s *Service) { s.Config["shm_size"] = 64 }), fullSpec(), nil},
		{"count", func() Spec { s := fullSpec(); s.Replicas = ptr(2); return s }(), fullSpec(), []string{"replicas: 2 -> 3"}},
		{"unmanaged count is not compared", func() Spec { s := fullSpec(); s.Replicas = nil; return s }(), fullSpec(), nil},
		{"env changed, added and removed", withWeb(func(s *Service) {
			s.Env = map[string]string{"LOG_LEVEL": "debug", "NEW": "1"}
		}), fullSpec(), []string{
			`services.web.env.LOG_LEVEL: "debug" -> "info"`,
			`services.web.env.NEW: "1" -> (unset)`,
		}},
		{"kill_signal", withWeb(func(s *Service) { s.KillSignal = "SIGQUIT" }), fullSpec(),
			[]string{`services.web.kill_signal: "SIGQUIT" -> "SIGTERM"`}},
		{"mounts reordered", withWeb(func(s *Service) { slices.Reverse(s.Mounts) }), fullSpec(), []string{
			`services.web.mounts: [{"volume":"assets","destination":"/srv/assets","read_only":true},{"volume":"data","destination":"/var/lib/shop","read_only":false}]` +
				` -> [{"volume":"data","destination":"/var/lib/shop","read_only":false},{"volume":"assets","destination":"/srv/assets","read_only":true}]`,
		}},
		{"service added", fullSpec(), func() Spec {
			s := fullSpec()
			s.Services["worker"] = s.Services["migrate"]
			return s
		}(), []string{"services.worker: added"}},
		{"port and check", withWeb(func(s *Service) {
			s.Ports = map[string]Port{"http": {To: 80}}
			s.Check = &Check{Type: "http", Port: "http", Path: "/", Interval: time.Second, Timeout: time.Second}
		}), fullSpec(), []string{
			"services.web.ports.http.to: 80 -> 8080",
			"services.web.ports.metrics: added",
			`services.web.check.path: "/" -> "/health"`,
			"services.web.check.interval: 1s -> 10s",
			"services.web.check.timeout: 1s -> 2s",
		}},
		{"several fields, deterministic order", func() Spec {
			s := fullSpec()
			s.Running = false
			s.Update.Canary = 0
			s.Meta = nil
			s.Datacenters = []string{"dc1"}
			return s
		}(), fullSpec(), []string{
			`datacenters: ["dc1"] -> ["dc1","dc2"]`,
			"running: false -> true",
			`meta.owner: (unset) -> "payments"`,
			"update.canary: 0 -> 1",
			// Unset, auto_promote follows the canaries.
			"update.auto_promote: false -> true",
		}},
		{"config key removed", withWeb(func(s *Service) { delete(s.Config, "privileged") }), fullSpec(),
			[]string{"services.web.config.privileged: (unset) -> false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestOnlyCountDiffers(t *testing.T) {
	count := func(n *int, mutate ...func(*Spec)) Spec {
		s := fullSpec()
		s.Replicas = n
		for _, m := range mutate {
			m(&s)
		}
		return s
	}
	tests := []struct {
		name string
		a, b Spec
		want bool
	}{
		{"only count", count(ptr(1)), count(ptr(5)), true},
		{"count and image", count(ptr(1)), count(ptr(5), func(s *Spec) {
			svc := s.Services["web"]
			svc.Image = "nginx:2"
			s.Services["web"] = svc
		}), false},
		{"same count", count(ptr(3)), count(ptr(3)), false},
		{"unmanaged count", count(nil), count(ptr(3)), false},
		{"count and stop", count(ptr(1)), count(ptr(2), func(s *Spec) { s.Running = false }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OnlyReplicasDiffer(tt.a, tt.b); got != tt.want {
				t.Errorf("OnlyCountDiffers = %v, want %v", got, tt.want)
			}
		})
	}
}
