package instance

import (
	"reflect"
	"testing"
	"time"
)

func TestValidateAcceptsExamples(t *testing.T) {
	for name, s := range map[string]Spec{"full": fullSpec(), "minimal": minimalSpec()} {
		if errs := Validate(s); len(errs) > 0 {
			t.Errorf("%s: unexpected errors %+v", name, errs)
		}
	}
}

func TestValidate(t *testing.T) {
	// Each row breaks one rule of fullSpec and expects exactly one error at
	// the given path.
	web := func(f func(*Service)) func(*Spec) {
		return func(s *Spec) {
			svc := s.Services["web"]
			f(&svc)
			s.Services["web"] = svc
		}
	}
	webCheck := func(f func(*Check)) func(*Spec) {
		return web(func(svc *Service) {
			c := *svc.Check
			f(&c)
			svc.Check = &c
		})
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
		path   []any
	}{
		{"unknown role", web(func(s *Service) { s.Role = "daemon" }), path("services", "web", "role")},
		{"unknown network mode", func(s *Spec) { s.NetworkMode = "cni" }, path("network_mode")},
		{"no main service", func(s *Spec) {
			delete(s.Services, "web")
		}, path("services")},
		{"no services at all", func(s *Spec) { s.Services = nil }, path("services")},
		{"duplicate port label", func(s *Spec) {
			p := s.Services["proxy"]
			p.Ports = map[string]Port{"admin": {}, "http": {}}
			s.Services["proxy"] = p
		}, path("services", "web", "ports", "http")}, // "proxy" < "web": web declares second
		{"duplicate static port", func(s *Spec) {
			p := s.Services["proxy"]
			p.Ports = map[string]Port{"admin": {Static: 29090}}
			s.Services["proxy"] = p
		}, path("services", "web", "ports", "metrics", "static")},
		{"check on undeclared port", webCheck(func(c *Check) { c.Port = "grpc" }), path("services", "web", "check", "port")},
		{"unknown check type", webCheck(func(c *Check) { c.Type = "grpc" }), path("services", "web", "check", "type")},
		{"http check without path", webCheck(func(c *Check) { c.Path = "" }), path("services", "web", "check", "path")},
		{"http path not absolute", webCheck(func(c *Check) { c.Path = "health" }), path("services", "web", "check", "path")},
		{"tcp check with path", webCheck(func(c *Check) { c.Type = "tcp"; c.Path = "/x" }), path("services", "web", "check", "path")},
		{"check interval too short", webCheck(func(c *Check) { c.Interval = 500 * time.Millisecond }), path("services", "web", "check", "interval")},
		{"check timeout unset", webCheck(func(c *Check) { c.Timeout = 0 }), path("services", "web", "check", "timeout")},
		{"invalid service name", func(s *Spec) {
			s.Name = "my_shop"
			p := s.Services["proxy"]
			p.Check = nil
			s.Services["proxy"] = p
		}, path("services", "web", "check")},
		{"memory_max below memory", web(func(s *Service) { s.MemoryMax = 128 }), path("services", "web", "memory_max")},
		{"negative memory_max", web(func(s *Service) { s.MemoryMax = -1 }), path("services", "web", "memory_max")},
		{"zero cpu", web(func(s *Service) { s.CPU = 0 }), path("services", "web", "cpu")},
		{"negative memory", web(func(s *Service) { s.Memory = -5; s.MemoryMax = 0 }), path("services", "web", "memory")},
		{"negative port to", web(func(s *Service) { s.Ports["http"] = Port{To: -1} }), path("services", "web", "ports", "http", "to")},
		{"static port too large", web(func(s *Service) { s.Ports["metrics"] = Port{Static: 70000} }), path("services", "web", "ports", "metrics", "static")},
		{"to too large", web(func(s *Service) { s.Ports["metrics"] = Port{To: 65536} }), path("services", "web", "ports", "metrics", "to")},
		{"port label with comma", func(s *Spec) {
			p := s.Services["proxy"]
			p.Ports = map[string]Port{"admin": {}, "a,b": {}}
			s.Services["proxy"] = p
		}, path("services", "proxy", "ports", "a,b")},
		{"negative count", func(s *Spec) { s.Count = ptr(-1) }, path("count")},
		{"negative max_parallel", func(s *Spec) { s.Update.MaxParallel = -1 }, path("update", "max_parallel")},
		{"negative canary", func(s *Spec) { s.Update.Canary = -1 }, path("update", "canary")},
		{"negative min_healthy_time", func(s *Spec) { s.Update.MinHealthyTime = -time.Second }, path("update", "min_healthy_time")},
		{"zero healthy_deadline", func(s *Spec) { s.Update.HealthyDeadline = 0 }, path("update", "healthy_deadline")},
		{"min_healthy_time not below deadline", func(s *Spec) { s.Update.MinHealthyTime = s.Update.HealthyDeadline }, path("update", "min_healthy_time")},
		{"negative progress_deadline", func(s *Spec) { s.Update.ProgressDeadline = -time.Second }, path("update", "progress_deadline")},
		{"progress_deadline not above healthy", func(s *Spec) { s.Update.ProgressDeadline = time.Minute }, path("update", "progress_deadline")},
		{"config holds image", web(func(s *Service) { s.Config = map[string]any{"image": "x"} }), path("services", "web", "config")},
		{"config holds args", web(func(s *Service) { s.Config = map[string]any{"args": []any{}} }), path("services", "web", "config")},
		{"check on init service", func(s *Spec) {
			m := s.Services["migrate"]
			m.Check = &Check{Type: "tcp", Port: "http", Interval: time.Second, Timeout: time.Second}
			s.Services["migrate"] = m
		}, path("services", "migrate", "check")},
		{"empty driver", web(func(s *Service) { s.Driver = "" }), path("services", "web", "driver")},
		{"reserved meta key", func(s *Spec) { s.Meta["berth.kind"] = "x" }, path("meta", "berth.kind")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fullSpec()
			tt.mutate(&s)
			errs := Validate(s)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %+v", len(errs), errs)
			}
			if !reflect.DeepEqual(errs[0].Path, tt.path) {
				t.Errorf("path = %v, want %v", errs[0].Path, tt.path)
			}
			if errs[0].Summary == "" || errs[0].Detail == "" {
				t.Errorf("summary and detail must be set: %+v", errs[0])
			}
		})
	}
}

func TestValidateAllowsDocumentedEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Spec)
	}{
		{"empty role means main", func(s *Spec) {
			svc := s.Services["app"]
			svc.Role = ""
			s.Services["app"] = svc
		}},
		{"deployments disabled", func(s *Spec) { s.Update.MaxParallel = 0 }},
		{"no progress deadline", func(s *Spec) { s.Update.ProgressDeadline = 0 }},
		{"zero count", func(s *Spec) { s.Count = ptr(0) }},
		{"unmanaged count", func(s *Spec) { s.Count = nil }},
		{"empty network mode means host", func(s *Spec) { s.NetworkMode = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := minimalSpec()
			tt.mutate(&s)
			if errs := Validate(s); len(errs) > 0 {
				t.Errorf("unexpected errors %+v", errs)
			}
		})
	}
}
