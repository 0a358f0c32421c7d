package instance

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// registrationSpec is fullSpec with the proxy registering two services
// with two checks each instead of nothing.
func registrationSpec() Spec {
	s := fullSpec()
	p := s.Services["proxy"]
	p.Ports = map[string]Port{"admin": {}}
	p.Check = nil
	p.Registrations = []Registration{
		{
			Name: "shop-admin", Port: "admin", Tags: []string{"a", "b"}, CanaryTags: []string{"canary"},
			Meta: map[string]string{"team": "payments"},
			Checks: []RegistrationCheck{
				{Name: "ready", Type: "http", Path: "/ready", Method: "HEAD", Header: map[string][]string{"X-Probe": {"1"}},
					Interval: 5 * time.Second, Timeout: time.Second, CheckRestart: &CheckRestart{Limit: 3, Grace: 30 * time.Second}},
				{Name: "alive", Type: "tcp", Port: "http", Interval: 10 * time.Second, Timeout: 2 * time.Second, OnUpdate: "ignore"},
			},
		},
		{
			Name: "shop-admin-v2", Port: "admin", AddressMode: "host", OnUpdate: "ignore",
			Checks: []RegistrationCheck{
				{Type: "tcp", Interval: 10 * time.Second, Timeout: 2 * time.Second},
				{Name: "b", Type: "tcp", Interval: 10 * time.Second, Timeout: 2 * time.Second},
			},
		},
	}
	s.Services["proxy"] = p
	return s
}

func TestRegistrationsRoundTrip(t *testing.T) {
	s := registrationSpec()
	if errs := Validate(s); len(errs) > 0 {
		t.Fatalf("Validate: %+v", errs)
	}
	job := simulateNomad(t, BuildJob(s, 3))
	got, unsupported := readBack(job, s)
	if len(unsupported) > 0 {
		t.Fatalf("unsupported = %q", unsupported)
	}
	if d := Diff(s, got); len(d) > 0 {
		t.Fatalf("round trip differs:\n%s", strings.Join(d, "\n"))
	}
	if got.Services["web"].Check == nil || got.Services["web"].Registrations != nil {
		t.Errorf("web's check read as %+v / %+v, want the check shorthand", got.Services["web"].Check, got.Services["web"].Registrations)
	}
}

// A task whose one service is exactly what berth makes of `check` reads as
// check; one step away from it, as registrations.
func TestReadServicesShorthandOrRegistrations(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*api.Service)
		shorthand bool
	}{
		{"as built", func(*api.Service) {}, true},
		{"with a tag", func(s *api.Service) { s.Tags = []string{"x"} }, false},
		{"renamed", func(s *api.Service) { s.Name = "other" }, false},
		{"named check", func(s *api.Service) { s.Checks[0].Name = "live" }, false},
		{"check on its own port", func(s *api.Service) { s.Checks[0].PortLabel = "http" }, false},
		{"check method", func(s *api.Service) { s.Checks[0].Method = "HEAD" }, false},
		{"second check", func(s *api.Service) { s.Checks = append(s.Checks, s.Checks[0]); s.Checks[1].Name = "2" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(fullSpec(), 1))
			tt.mutate(task(job, "web").Services[0])
			got, unsupported := SpecFromJob(job)
			if len(unsupported) > 0 {
				t.Fatalf("unsupported = %q", unsupported)
			}
			web := got.Services["web"]
			if (web.Check != nil) != tt.shorthand || (web.Registrations == nil) != tt.shorthand {
				t.Fatalf("check %+v, registrations %+v; want shorthand %t", web.Check, web.Registrations, tt.shorthand)
			}
			// Either way, building it again gives the same services.
			again := simulateNomad(t, BuildJob(got, 1))
			if !reflect.DeepEqual(task(again, "web").Services, task(job, "web").Services) {
				t.Errorf("rebuilt services differ:\n got %+v\nwant %+v", task(again, "web").Services, task(job, "web").Services)
			}
		})
	}
}

func TestRegistrationDiffNamesTheField(t *testing.T) {
	s := registrationSpec()
	job := simulateNomad(t, BuildJob(s, 3))
	proxy := task(job, "proxy")
	proxy.Services[0].Tags = []string{"a", "c"}
	proxy.Services[1].Checks[1].Interval = time.Minute
	got, _ := readBack(job, s)
	want := []string{
		`services.proxy.registrations[0].tags: ["a","b"] -> ["a","c"]`,
		`services.proxy.registrations[1].checks[1].interval: 10s -> 1m0s`,
	}
	if d := Diff(s, got); !reflect.DeepEqual(d, want) {
		t.Errorf("Diff = %q, want %q", d, want)
	}
}

func TestValidateRegistrations(t *testing.T) {
	reg := func(f func(*Registration)) func(*Spec) {
		return func(s *Spec) {
			p := s.Services["proxy"]
			p.Registrations = slices.Clone(p.Registrations)
			r := p.Registrations[0]
			r.Checks = slices.Clone(r.Checks)
			f(&r)
			p.Registrations[0] = r
			s.Services["proxy"] = p
		}
	}
	at := func(elems ...any) []any { return append(path("services", "proxy", "registrations", 0), elems...) }
	tests := []struct {
		name   string
		mutate func(*Spec)
		path   []any
	}{
		{"grpc check with nomad", reg(func(r *Registration) { r.Checks[0].Type = "grpc" }), at("checks", 0, "type")},
		{"ignore_warnings with nomad", reg(func(r *Registration) { r.Checks[0].CheckRestart.IgnoreWarnings = true }),
			at("checks", 0, "check_restart", "ignore_warnings")},
		{"address_mode driver with nomad", reg(func(r *Registration) { r.AddressMode = "driver" }), at("address_mode")},
		{"check address_mode driver with nomad", reg(func(r *Registration) { r.Checks[1].AddressMode = "driver" }), at("checks", 1, "address_mode")},
		{"on_update ignore_warnings with nomad", reg(func(r *Registration) { r.OnUpdate = "ignore_warnings" }), at("on_update")},
		{"undeclared port", reg(func(r *Registration) { r.Port = "nope" }), at("port")},
		{"undeclared check port", reg(func(r *Registration) { r.Checks[1].Port = "nope" }), at("checks", 1, "port")},
		{"numeric port", reg(func(r *Registration) { r.Port = "8080" }), at("port")},
		{"invalid name", reg(func(r *Registration) { r.Name = "shop_admin" }), at("name")},
		{"name Nomad rewrites", reg(func(r *Registration) { r.Name = "${JOB}-admin" }), at("name")},
		{"duplicate registration", func(s *Spec) {
			p := s.Services["proxy"]
			p.Registrations = slices.Clone(p.Registrations)
			p.Registrations[1].Name = p.Registrations[0].Name
			s.Services["proxy"] = p
		}, path("services", "proxy", "registrations", 1, "name")},
		{"duplicate check name", reg(func(r *Registration) { r.Checks[1].Name = "ready" }), at("checks", 1, "name")},
		{"two unnamed checks", func(s *Spec) {
			p := s.Services["proxy"]
			p.Registrations = slices.Clone(p.Registrations)
			r := p.Registrations[1]
			r.Checks = slices.Clone(r.Checks)
			r.Checks[1].Name = ""
			p.Registrations[1] = r
			s.Services["proxy"] = p
		}, path("services", "proxy", "registrations", 1, "checks", 1, "name")},
		{"http check without path", reg(func(r *Registration) { r.Checks[0].Path = "" }), at("checks", 0, "path")},
		{"http check with a URL", reg(func(r *Registration) { r.Checks[0].Path = "http://x/y" }), at("checks", 0, "path")},
		{"interval too short", reg(func(r *Registration) { r.Checks[1].Interval = time.Millisecond }), at("checks", 1, "interval")},
		{"bad method", reg(func(r *Registration) { r.Checks[0].Method = "FETCH" }), at("checks", 0, "method")},
		{"check without port", reg(func(r *Registration) { r.Port = ""; r.Checks[0].Port = "" }), at("checks", 0, "port")},
		{"check_restart with on_update ignore", reg(func(r *Registration) { r.Checks[0].OnUpdate = "ignore" }), at("checks", 0, "check_restart")},
		{"consul next to nomad", reg(func(r *Registration) { r.Provider = "consul" }), at("provider")},
		{"check on init service", func(s *Spec) {
			p := s.Services["proxy"]
			p.Role = RoleInit
			s.Services["proxy"] = p
		}, at("checks")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := registrationSpec()
			tt.mutate(&s)
			errs := Validate(s)
			if len(errs) != 1 || !reflect.DeepEqual(errs[0].Path, tt.path) {
				t.Fatalf("Validate = %+v, want one error at %v", errs, tt.path)
			}
		})
	}
}

// With provider consul, the Consul-only settings are allowed.
func TestValidateRegistrationsConsul(t *testing.T) {
	s := registrationSpec()
	web := s.Services["web"]
	web.Check = nil
	s.Services["web"] = web
	p := s.Services["proxy"]
	for i := range p.Registrations {
		p.Registrations[i].Provider = ProviderConsul
	}
	r := &p.Registrations[0]
	r.AddressMode = "driver"
	r.Port = "8080"
	r.Checks[0].Type = "grpc"
	r.Checks[0].Path = ""
	r.Checks[0].CheckRestart.IgnoreWarnings = true
	r.Checks[0].OnUpdate = "ignore_warnings"
	r.Checks[1].Port = ""
	r.Checks[1].AddressMode = "driver"
	s.Services["proxy"] = p
	if errs := Validate(s); len(errs) > 0 {
		t.Fatalf("Validate: %+v", errs)
	}
}

// Consul check settings berth does not manage make a job unsupported
// rather than read without them.
func TestReadRegistrationUnmanagedSettings(t *testing.T) {
	s := registrationSpec()
	job := simulateNomad(t, BuildJob(s, 3))
	c := &task(job, "proxy").Services[0].Checks[1]
	c.Type, c.Command, c.Notes = "script", "/bin/check", "see runbook"
	task(job, "proxy").Services[1].TaggedAddresses = map[string]string{"lan": "10.0.0.1"}
	_, unsupported := SpecFromJob(job)
	want := []string{
		`task "proxy" service "shop-admin" check "alive" sets type "script", command, notes (berth does not manage them)`,
		`task "proxy" service "shop-admin-v2" sets tagged_addresses (berth does not manage them)`,
	}
	if !reflect.DeepEqual(unsupported, want) {
		t.Errorf("unsupported = %q, want %q", unsupported, want)
	}
}
