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
		{"no main service", func(s *Spec) {
			delete(s.Services, "web")
		}, path("services")},
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
		{"port label with comma", func(s *Spec) {
			p := s.Services["proxy"]
			p.Ports = map[string]Port{"admin": {}, "a,b": {}}
			s.Services["proxy"] = p
		}, path("services", "proxy", "ports", "a,b")},
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
		{"service name with a slash", renameService("web", "web/a"), path("services", "web/a")},
		{"service name with a newline", renameService("web", "web\n"), path("services", "web\n")},
		{"empty service name", renameService("proxy", ""), path("services", "")},
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

// renameService moves a service to a new key, keeping what it declares.
func renameService(from, to string) func(*Spec) {
	return func(s *Spec) {
		s.Services[to] = s.Services[from]
		delete(s.Services, from)
	}
}

// TestValidateLeavesSingleAttributeRulesToTheSchema: ranges and
// enumerations of one attribute are the schema validators' job; reporting
// them here too gave the user two errors for one mistake. Each mutation is
// one the schema rejects (see TestAccBadInput_rejectedAtPlan), and none of
// them may cause a second, derived error here either.
func TestValidateLeavesSingleAttributeRulesToTheSchema(t *testing.T) {
	web := func(f func(*Service)) func(*Spec) { return withService("web", f) }
	tests := map[string]func(*Spec){
		"negative count":        func(s *Spec) { s.Replicas = ptr(-1) },
		"unknown network mode":  func(s *Spec) { s.NetworkMode = "cni" },
		"no services at all":    func(s *Spec) { s.Services = nil },
		"zero cpu":              web(func(s *Service) { s.CPU = 0 }),
		"negative memory":       web(func(s *Service) { s.Memory = -5; s.MemoryMax = 0 }),
		"negative memory_max":   web(func(s *Service) { s.MemoryMax = -1 }),
		"port out of range":     web(func(s *Service) { s.Ports["metrics"] = Port{To: 65536, Static: -1} }),
		"unknown check type":    web(func(s *Service) { c := *s.Check; c.Type = "grpc"; s.Check = &c }),
		"negative max_parallel": func(s *Spec) { s.Update.MaxParallel = -1 },
		"negative canary":       func(s *Spec) { s.Update.Canary = -1 },
		"unknown access mode":   withVolume("data", func(v *VolumeClaim) { v.AccessMode = "any-node-writer" }),
		"unknown attachment":    withVolume("data", func(v *VolumeClaim) { v.AttachmentMode = "filesystem" }),
		"empty host volume":     withVolume("data", func(v *VolumeClaim) { v.Source = "" }),
		// The only main service with an unknown role: the role error is
		// the schema's, and "no main service" would repeat it.
		"unknown role of the only service": func(s *Spec) {
			s.Services = map[string]Service{"a": {Role: "daemon", Driver: "exec", CPU: 100, Memory: 64}}
			s.Volumes = nil
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			s := fullSpec()
			mutate(&s)
			if errs := Validate(s); len(errs) > 0 {
				t.Errorf("Validate reported %+v; the schema reports this mistake", errs)
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
		{"zero count", func(s *Spec) { s.Replicas = ptr(0) }},
		{"unmanaged count", func(s *Spec) { s.Replicas = nil }},
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
