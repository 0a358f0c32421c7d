package instance

import (
	"reflect"
	"strings"
	"testing"
)

// withService and withVolume edit one entry of a spec's maps in place.
func withService(name string, f func(*Service)) func(*Spec) {
	return func(s *Spec) {
		svc := s.Services[name]
		f(&svc)
		s.Services[name] = svc
	}
}

func withVolume(name string, f func(*VolumeClaim)) func(*Spec) {
	return func(s *Spec) {
		v := s.Volumes[name]
		f(&v)
		s.Volumes[name] = v
	}
}

func TestValidateVolumes(t *testing.T) {
	// Each row breaks one rule of fullSpec and expects exactly one error.
	tests := []struct {
		name    string
		mutate  func(*Spec)
		path    []any
		summary string
	}{
		{"mount of undeclared volume", withService("web", func(s *Service) { s.Mounts[1].Volume = "logs" }),
			path("services", "web", "mounts", 1, "volume"), "Unknown volume"},
		{"mount without volume", withService("web", func(s *Service) { s.Mounts[0].Volume = "" }),
			path("services", "web", "mounts", 0, "volume"), "Missing mount volume"},
		{"raw_exec cannot mount", withService("proxy", func(s *Service) { s.Driver = "raw_exec" }),
			path("services", "proxy", "mounts"), "Driver cannot mount volumes"},
		{"qemu cannot mount", withService("proxy", func(s *Service) { s.Driver = "qemu" }),
			path("services", "proxy", "mounts"), "Driver cannot mount volumes"},
		{"empty destination", withService("web", func(s *Service) { s.Mounts[0].Destination = "" }),
			path("services", "web", "mounts", 0, "destination"), "Missing mount destination"},
		{"relative destination", withService("web", func(s *Service) { s.Mounts[1].Destination = "srv/assets" }),
			path("services", "web", "mounts", 1, "destination"), "Invalid mount destination"},
		{"duplicate destination", withService("web", func(s *Service) { s.Mounts[1].Destination = "/var/lib/shop/" }),
			path("services", "web", "mounts", 1, "destination"), "Duplicate mount destination"},
		{"reader-only on a writable claim", withVolume("data", func(v *VolumeClaim) { v.AccessMode = "single-node-reader-only" }),
			path("volumes", "data", "access_mode"), "Access mode needs read_only"},
		{"writer on a read-only claim", withVolume("assets", func(v *VolumeClaim) { v.AccessMode = "single-node-writer" }),
			path("volumes", "assets", "access_mode"), "Access mode needs a writable volume"},
		{"empty volume name", func(s *Spec) { s.Volumes[""] = VolumeClaim{Source: "x"} },
			path("volumes", ""), "Invalid volume name"},
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
				t.Errorf("path = %#v, want %#v", errs[0].Path, tt.path)
			}
			if errs[0].Summary != tt.summary || errs[0].Detail == "" {
				t.Errorf("summary = %q, want %q (detail %q)", errs[0].Summary, tt.summary, errs[0].Detail)
			}
		})
	}
}

func TestValidateDriverDetail(t *testing.T) {
	s := fullSpec()
	withService("proxy", func(s *Service) { s.Driver = "raw_exec" })(&s)
	errs := Validate(s)
	if len(errs) != 1 {
		t.Fatalf("errors = %+v", errs)
	}
	for _, want := range []string{"`raw_exec`", "does not support host volumes", "`exec`"} {
		if !strings.Contains(errs[0].Detail, want) {
			t.Errorf("detail %q does not mention %s", errs[0].Detail, want)
		}
	}
}

func TestValidateAllowsVolumeEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Spec)
	}{
		{"volume mounted by no service", func(s *Spec) { s.Volumes["pin"] = VolumeClaim{Source: "pin"} }},
		{"default modes", withVolume("assets", func(v *VolumeClaim) { v.AccessMode, v.AttachmentMode = "", "" })},
		{"single-node-single-writer read-only", withVolume("assets", func(v *VolumeClaim) { v.AccessMode = "single-node-single-writer" })},
		{"multi-writer writable", withVolume("data", func(v *VolumeClaim) { v.AccessMode = "single-node-multi-writer" })},
		{"block device", withVolume("data", func(v *VolumeClaim) { v.AttachmentMode = "block-device" })},
		{"same volume at two destinations", withService("web", func(s *Service) { s.Mounts[1].Volume = "data" })},
		{"same destination in two services", withService("proxy", func(s *Service) { s.Mounts[0].Destination = "/srv/assets" })},
		{"java mounts", withService("proxy", func(s *Service) { s.Driver = "java" })},
		{"third-party driver mounts", withService("proxy", func(s *Service) { s.Driver = "podman" })},
		{"raw_exec without mounts", withService("migrate", func(s *Service) { s.Driver = "raw_exec" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fullSpec()
			tt.mutate(&s)
			if errs := Validate(s); len(errs) > 0 {
				t.Errorf("unexpected errors %+v", errs)
			}
		})
	}
}

func TestDiffVolumes(t *testing.T) {
	edit := func(mutate ...func(*Spec)) Spec {
		s := fullSpec()
		for _, m := range mutate {
			m(&s)
		}
		return s
	}
	tests := []struct {
		name string
		a, b Spec
		want []string
	}{
		{"read_only", fullSpec(), edit(withVolume("data", func(v *VolumeClaim) { v.ReadOnly = true })),
			// The default access mode follows read_only.
			[]string{"volumes.data.read_only: false -> true", `volumes.data.access_mode: "single-node-writer" -> "single-node-reader-only"`}},
		{"explicit default modes equal empty ones", edit(withVolume("assets", func(v *VolumeClaim) { v.AccessMode, v.AttachmentMode = "", "" })),
			fullSpec(), nil},
		{"source and attachment mode", fullSpec(), edit(withVolume("data", func(v *VolumeClaim) {
			v.Source = "shop-data-2"
			v.AttachmentMode = "block-device"
		})), []string{`volumes.data.volume: "shop-data" -> "shop-data-2"`, `volumes.data.attachment_mode: "file-system" -> "block-device"`}},
		{"volumes only in b", edit(func(s *Spec) { delete(s.Volumes, "assets") }),
			edit(func(s *Spec) { s.Volumes["zz"] = VolumeClaim{Source: "z"} }),
			[]string{"volumes.assets: added", "volumes.zz: added"}},
		{"volume removed", fullSpec(), edit(func(s *Spec) { delete(s.Volumes, "data") }), []string{"volumes.data: removed"}},
		{"nil and empty volumes and mounts", edit(func(s *Spec) { s.Volumes = nil }),
			edit(func(s *Spec) { s.Volumes = map[string]VolumeClaim{} }), nil},
		{"mount read_only", fullSpec(), edit(withService("proxy", func(s *Service) { s.Mounts[0].ReadOnly = true })),
			[]string{`services.proxy.mounts: [{"volume":"assets","destination":"/assets","read_only":false}] -> [{"volume":"assets","destination":"/assets","read_only":true}]`}},
		{"mounts added", edit(withService("migrate", func(s *Service) { s.Mounts = []Mount{} })),
			edit(withService("migrate", func(s *Service) { s.Mounts = []Mount{{Volume: "data", Destination: "/data"}} })),
			[]string{`services.migrate.mounts: [] -> [{"volume":"data","destination":"/data","read_only":false}]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestValidateCSIVolumes(t *testing.T) {
	csi := func(v VolumeClaim) func(*Spec) {
		return func(s *Spec) {
			v.Type = VolumeTypeCSI
			s.Volumes["data"] = v
			s.Update.Canary = 0 // fullSpec's canary rules out per_alloc
		}
	}
	// fullSpec has replicas = 3; each row expects exactly one error.
	tests := []struct {
		name    string
		mutate  func(*Spec)
		path    []any
		summary string
		detail  string
	}{
		{"csi mode on a host volume", withVolume("data", func(v *VolumeClaim) { v.AccessMode = "multi-node-multi-writer" }),
			path("volumes", "data", "access_mode"), "Access mode of CSI volumes only", `type = "csi"`},
		{"host mode on a csi volume", csi(VolumeClaim{Source: "d", PerAlloc: true, AccessMode: "single-node-multi-writer"}),
			path("volumes", "data", "access_mode"), "Access mode of host volumes only", `"multi-node-multi-writer"`},
		{"single-node-writer shared by replicas", csi(VolumeClaim{Source: "d"}),
			path("volumes", "data", "access_mode"), "Access mode allows one allocation", "per_alloc = true"},
		{"single-node-reader shared by replicas", csi(VolumeClaim{Source: "d", ReadOnly: true}),
			path("volumes", "data", "access_mode"), "Access mode allows one allocation", "replicas is 3"},
		{"multi-node reader writable", csi(VolumeClaim{Source: "d", AccessMode: "multi-node-reader-only"}),
			path("volumes", "data", "access_mode"), "Access mode needs read_only", "read_only = true"},
		{"multi-node single writer shared by replicas", csi(VolumeClaim{Source: "d", AccessMode: "multi-node-single-writer"}),
			path("volumes", "data", "access_mode"), "Access mode allows one writer", "multi-node-multi-writer"},
		{"per_alloc with canaries", func(s *Spec) {
			csi(VolumeClaim{Source: "d", PerAlloc: true})(s)
			s.Update.Canary = 1
		}, path("volumes", "data", "per_alloc"), "per_alloc with canaries", "update.canary = 0"},
		{"per_alloc on a system job", func(s *Spec) {
			csi(VolumeClaim{Source: "d", PerAlloc: true, AccessMode: "multi-node-multi-writer"})(s)
			s.Type, s.Replicas, s.PinNode = TypeSystem, nil, ""
		}, path("volumes", "data", "per_alloc"), "per_alloc on a system job", "service job"},
		{"raw_exec cannot mount csi", func(s *Spec) {
			csi(VolumeClaim{Source: "d", PerAlloc: true})(s)
			withService("web", func(s *Service) { s.Driver = "raw_exec" })(s)
		}, path("services", "web", "mounts"), "Driver cannot mount volumes", "does not support CSI"},
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
				t.Errorf("path = %#v, want %#v", errs[0].Path, tt.path)
			}
			if errs[0].Summary != tt.summary || !strings.Contains(errs[0].Detail, tt.detail) {
				t.Errorf("summary = %q, want %q; detail %q should contain %q", errs[0].Summary, tt.summary, errs[0].Detail, tt.detail)
			}
		})
	}
}

func TestValidateAllowsCSIVolumes(t *testing.T) {
	csi := func(v VolumeClaim) func(*Spec) {
		return func(s *Spec) {
			v.Type = VolumeTypeCSI
			s.Volumes["data"] = v
			s.Update.Canary = 0 // fullSpec's canary rules out per_alloc
		}
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
	}{
		{"per_alloc with default modes", csi(VolumeClaim{Source: "d", PerAlloc: true})},
		{"single-node-writer with one replica", func(s *Spec) {
			csi(VolumeClaim{Source: "d"})(s)
			s.Replicas = ptr(1)
		}},
		{"single-node-writer with an unmanaged count", func(s *Spec) {
			csi(VolumeClaim{Source: "d"})(s)
			s.Replicas = nil
		}},
		{"read-only single-node-writer", func(s *Spec) {
			csi(VolumeClaim{Source: "d", ReadOnly: true, AccessMode: "single-node-writer"})(s)
			s.Replicas = ptr(1)
		}},
		{"multi-node-multi-writer shared", csi(VolumeClaim{Source: "d", AccessMode: "multi-node-multi-writer"})},
		{"multi-node-single-writer read-only shared", csi(VolumeClaim{Source: "d", ReadOnly: true, AccessMode: "multi-node-single-writer"})},
		{"multi-node-reader-only read-only", csi(VolumeClaim{Source: "d", ReadOnly: true, AccessMode: "multi-node-reader-only"})},
		{"host per_alloc", func(s *Spec) {
			withVolume("data", func(v *VolumeClaim) { v.PerAlloc = true })(s)
			s.Update.Canary = 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fullSpec()
			tt.mutate(&s)
			if errs := Validate(s); len(errs) > 0 {
				t.Errorf("unexpected errors %+v", errs)
			}
		})
	}
}
