package instance

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestDriverSupportsHostVolumes(t *testing.T) {
	tests := []struct {
		driver string
		want   bool
	}{
		{"raw_exec", false},
		{"qemu", false},
		{"mock_driver", false},
		{"exec", true},
		{"docker", true},
		{"java", true}, // supported on Linux, where Nomad clients run java tasks
		{"podman", true},
		{"some-community-driver", true},
	}
	for _, tt := range tests {
		t.Run(tt.driver, func(t *testing.T) {
			if got := DriverSupportsHostVolumes(tt.driver); got != tt.want {
				t.Errorf("DriverSupportsHostVolumes(%q) = %v, want %v", tt.driver, got, tt.want)
			}
		})
	}
}

func TestDefaultVolumeAccessModeFor(t *testing.T) {
	tests := []struct {
		readOnly bool
		want     string
	}{
		{false, "single-node-writer"},
		{true, "single-node-reader-only"},
	}
	for _, tt := range tests {
		if got := DefaultVolumeAccessModeFor(tt.readOnly); got != tt.want {
			t.Errorf("DefaultVolumeAccessModeFor(%v) = %q, want %q", tt.readOnly, got, tt.want)
		}
	}
}

func TestBuildJobVolumes(t *testing.T) {
	s := fullSpec()
	s.Volumes["blocks"] = VolumeClaim{Source: "raw", AccessMode: "single-node-multi-writer", AttachmentMode: "block-device"}
	job := BuildJob(s, 1)

	wantVolumes := map[string]*api.VolumeRequest{
		"data": {Name: "data", Type: "host", Source: "shop-data",
			AccessMode: "single-node-writer", AttachmentMode: "file-system"},
		"assets": {Name: "assets", Type: "host", Source: "shop-assets", ReadOnly: true,
			AccessMode: "single-node-reader-only", AttachmentMode: "file-system"},
		"blocks": {Name: "blocks", Type: "host", Source: "raw",
			AccessMode: "single-node-multi-writer", AttachmentMode: "block-device"},
	}
	if got := job.TaskGroups[0].Volumes; !reflect.DeepEqual(got, wantVolumes) {
		t.Errorf("volumes = %+v, want %+v", got, wantVolumes)
	}

	tests := []struct {
		task string
		want []*api.VolumeMount
	}{
		{"web", []*api.VolumeMount{
			{Volume: ptr("data"), Destination: ptr("/var/lib/shop"), ReadOnly: ptr(false)},
			{Volume: ptr("assets"), Destination: ptr("/srv/assets"), ReadOnly: ptr(true)},
		}},
		{"proxy", []*api.VolumeMount{{Volume: ptr("assets"), Destination: ptr("/assets"), ReadOnly: ptr(false)}}},
		{"migrate", nil},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			if got := findTask(t, job, tt.task).VolumeMounts; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("mounts = %s, want %s", mountsString(got), mountsString(tt.want))
			}
		})
	}

	if v := BuildJob(minimalSpec(), 1).TaskGroups[0].Volumes; v != nil {
		t.Errorf("volumes = %v for a spec without volumes, want nil", v)
	}
}

func TestRoundTripVolumes(t *testing.T) {
	withVolumes := func(vols map[string]VolumeClaim, mounts ...Mount) Spec {
		s := minimalSpec()
		s.Volumes = vols
		svc := s.Services["app"]
		svc.Mounts = mounts
		s.Services["app"] = svc
		return s
	}
	tests := []struct {
		name string
		spec Spec
	}{
		{"default modes", withVolumes(map[string]VolumeClaim{"data": {Source: "d"}},
			Mount{Volume: "data", Destination: "/data"})},
		{"read-only default mode", withVolumes(map[string]VolumeClaim{"ro": {Source: "d", ReadOnly: true}},
			Mount{Volume: "ro", Destination: "/ro", ReadOnly: true})},
		{"explicit modes", withVolumes(map[string]VolumeClaim{
			"data": {Source: "d", AccessMode: "single-node-single-writer", AttachmentMode: "block-device"},
		}, Mount{Volume: "data", Destination: "/dev/data"})},
		{"volume mounted by no service", withVolumes(map[string]VolumeClaim{"pin": {Source: "p"}})},
		{"same volume twice, order kept", withVolumes(map[string]VolumeClaim{"data": {Source: "d"}},
			Mount{Volume: "data", Destination: "/z"}, Mount{Volume: "data", Destination: "/a", ReadOnly: true})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			got, unsupported := readBack(simulateNomad(t, BuildJob(tt.spec, 1)), tt.spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if want := Normalize(tt.spec); !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s\ngot  %+v\nwant %+v", strings.Join(Diff(want, got), "\n"), got.Volumes, want.Volumes)
			}
		})
	}
}

func TestSpecFromJobVolumeChanges(t *testing.T) {
	group := func(j *api.Job) *api.TaskGroup { return j.TaskGroups[0] }
	tests := []struct {
		name   string
		mutate func(job *api.Job)
		want   []string
	}{
		{"read_only", func(j *api.Job) { group(j).Volumes["data"].ReadOnly = true },
			[]string{"volumes.data.read_only: false -> true"}},
		{"source", func(j *api.Job) { group(j).Volumes["data"].Source = "other" },
			[]string{`volumes.data.volume: "shop-data" -> "other"`}},
		{"access mode", func(j *api.Job) { group(j).Volumes["data"].AccessMode = "single-node-multi-writer" },
			[]string{`volumes.data.access_mode: "single-node-writer" -> "single-node-multi-writer"`}},
		{"empty modes read as defaults", func(j *api.Job) {
			group(j).Volumes["data"].AccessMode, group(j).Volumes["data"].AttachmentMode = "", ""
			group(j).Volumes["assets"].AccessMode = ""
		}, nil},
		{"volume removed", func(j *api.Job) { delete(group(j).Volumes, "assets") },
			[]string{"volumes.assets: removed"}},
		{"volume added", func(j *api.Job) {
			group(j).Volumes["extra"] = &api.VolumeRequest{Name: "extra", Type: "host", Source: "x"}
		}, []string{"volumes.extra: added"}},
		{"mount destination", func(j *api.Job) { task(j, "proxy").VolumeMounts[0].Destination = ptr("/a") },
			[]string{`services.proxy.mounts: [{"volume":"assets","destination":"/assets","read_only":false}] -> [{"volume":"assets","destination":"/a","read_only":false}]`}},
		{"mount removed", func(j *api.Job) { task(j, "proxy").VolumeMounts = nil },
			[]string{`services.proxy.mounts: [{"volume":"assets","destination":"/assets","read_only":false}] -> []`}},
		{"mounts reordered", func(j *api.Job) {
			m := task(j, "web").VolumeMounts
			m[0], m[1] = m[1], m[0]
		}, []string{`services.web.mounts: ` +
			`[{"volume":"data","destination":"/var/lib/shop","read_only":false},{"volume":"assets","destination":"/srv/assets","read_only":true}] -> ` +
			`[{"volume":"assets","destination":"/srv/assets","read_only":true},{"volume":"data","destination":"/var/lib/shop","read_only":false}]`}},
		{"propagation private and no label are defaults", func(j *api.Job) {
			task(j, "proxy").VolumeMounts[0].PropagationMode = ptr("")
			task(j, "proxy").VolumeMounts[0].SELinuxLabel = nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(fullSpec(), 1))
			tt.mutate(job)
			got, unsupported := readBack(job, fullSpec())
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if d := Diff(fullSpec(), got); !reflect.DeepEqual(d, tt.want) {
				t.Errorf("Diff =\n%q\nwant\n%q", d, tt.want)
			}
		})
	}
}

func TestSpecFromJobVolumeUnsupported(t *testing.T) {
	vol := func(f func(v *api.VolumeRequest)) func(*api.Job) {
		return func(j *api.Job) { f(j.TaskGroups[0].Volumes["data"]) }
	}
	mount := func(f func(m *api.VolumeMount)) func(*api.Job) {
		return func(j *api.Job) { f(task(j, "web").VolumeMounts[1]) }
	}
	tests := []struct {
		name   string
		mutate func(job *api.Job)
		want   string
	}{
		{"unknown type", vol(func(v *api.VolumeRequest) { v.Type = "nfs" }), `group volume "data" has type "nfs"`},
		{"csi sticky", vol(func(v *api.VolumeRequest) { v.Type, v.Sticky = "csi", true }), `group volume "data" is sticky`},
		{"csi mount options", vol(func(v *api.VolumeRequest) {
			v.Type, v.MountOptions = "csi", &api.CSIMountOptions{MountFlags: []string{"noatime"}}
		}), `group "app" volume "data" sets mount_options`},
		{"sticky", vol(func(v *api.VolumeRequest) { v.Sticky = true }), `group volume "data" is sticky`},
		{"mount options", vol(func(v *api.VolumeRequest) { v.MountOptions = &api.CSIMountOptions{FSType: "ext4"} }),
			`group "app" volume "data" sets mount_options`},
		{"propagation mode", mount(func(m *api.VolumeMount) { m.PropagationMode = ptr("bidirectional") }),
			`task "web" volume_mount 1 uses propagation mode "bidirectional"`},
		{"selinux label", mount(func(m *api.VolumeMount) { m.SELinuxLabel = ptr("Z") }),
			`task "web" volume_mount 1 sets selinux label "Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(fullSpec(), 1))
			tt.mutate(job)
			got, unsupported := SpecFromJob(job)
			if len(unsupported) != 1 || !strings.Contains(unsupported[0], tt.want) {
				t.Errorf("unsupported = %q, want one entry containing %q", unsupported, tt.want)
			}
			// The rest of the volume is still read, so mounts keep referring
			// to something.
			if _, ok := got.Volumes["data"]; !ok {
				t.Errorf("volume data not read: %+v", got.Volumes)
			}
		})
	}
}

func mountsString(ms []*api.VolumeMount) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, deref(m.Volume)+":"+deref(m.Destination)+":"+map[bool]string{true: "ro", false: "rw"}[deref(m.ReadOnly)])
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestBuildJobCSIVolumes(t *testing.T) {
	s := minimalSpec()
	s.Replicas = ptr(2)
	s.Volumes = map[string]VolumeClaim{
		"data":   {Type: "csi", Source: "db", PerAlloc: true},
		"shared": {Type: "csi", Source: "media", ReadOnly: true, AccessMode: "multi-node-reader-only", AttachmentMode: "block-device"},
		"host":   {Source: "h", PerAlloc: true},
	}
	want := map[string]*api.VolumeRequest{
		"data": {Name: "data", Type: "csi", Source: "db", PerAlloc: true,
			AccessMode: "single-node-writer", AttachmentMode: "file-system"},
		"shared": {Name: "shared", Type: "csi", Source: "media", ReadOnly: true,
			AccessMode: "multi-node-reader-only", AttachmentMode: "block-device"},
		"host": {Name: "host", Type: "host", Source: "h", PerAlloc: true,
			AccessMode: "single-node-writer", AttachmentMode: "file-system"},
	}
	if got := BuildJob(s, 1).TaskGroups[0].Volumes; !reflect.DeepEqual(got, want) {
		t.Errorf("volumes = %+v, want %+v", got, want)
	}
}

func TestRoundTripCSIVolumes(t *testing.T) {
	withVolumes := func(replicas int, vols map[string]VolumeClaim, mounts ...Mount) Spec {
		s := minimalSpec()
		s.Replicas = ptr(replicas)
		s.Volumes = vols
		svc := s.Services["app"]
		svc.Mounts = mounts
		s.Services["app"] = svc
		return s
	}
	tests := []struct {
		name string
		spec Spec
	}{
		{"per_alloc with default modes", withVolumes(2, map[string]VolumeClaim{"data": {Type: "csi", Source: "db", PerAlloc: true}},
			Mount{Volume: "data", Destination: "/data"})},
		{"read-only default mode", withVolumes(1, map[string]VolumeClaim{"ro": {Type: "csi", Source: "db", ReadOnly: true}},
			Mount{Volume: "ro", Destination: "/ro", ReadOnly: true})},
		{"multi-node modes", withVolumes(3, map[string]VolumeClaim{
			"shared": {Type: "csi", Source: "media", AccessMode: "multi-node-multi-writer", AttachmentMode: "block-device"},
			"single": {Type: "csi", Source: "lock", AccessMode: "multi-node-single-writer", ReadOnly: true},
		}, Mount{Volume: "shared", Destination: "/dev/shared"}, Mount{Volume: "single", Destination: "/lock", ReadOnly: true})},
		{"csi next to host", withVolumes(2, map[string]VolumeClaim{
			"data": {Type: "csi", Source: "db", PerAlloc: true},
			"logs": {Type: "host", Source: "logs", PerAlloc: true},
			"etc":  {Source: "etc", ReadOnly: true},
		}, Mount{Volume: "data", Destination: "/data"}, Mount{Volume: "logs", Destination: "/logs"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			got, unsupported := readBack(simulateNomad(t, BuildJob(tt.spec, 1)), tt.spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if want := Normalize(tt.spec); !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s\ngot  %+v\nwant %+v", strings.Join(Diff(want, got), "\n"), got.Volumes, want.Volumes)
			}
		})
	}
}

// TestSpecFromJobCSIVolumes reads a job written elsewhere (as an HCL
// jobspec would register it) and checks every CSI request field is
// modeled, and that a change to any of them is drift.
func TestSpecFromJobCSIVolumes(t *testing.T) {
	imported := func() *api.Job {
		s := minimalSpec()
		s.Replicas = ptr(2)
		svc := s.Services["app"]
		svc.Mounts = []Mount{{Volume: "data", Destination: "/data"}}
		s.Services["app"] = svc
		job := BuildJob(s, 1)
		job.TaskGroups[0].Volumes = map[string]*api.VolumeRequest{
			"data": {Name: "data", Type: "csi", Source: "db", PerAlloc: true,
				AccessMode: "single-node-writer", AttachmentMode: "file-system"},
		}
		return simulateNomad(t, job)
	}
	got, unsupported := SpecFromJob(imported())
	if len(unsupported) > 0 {
		t.Fatalf("unsupported = %q", unsupported)
	}
	want := VolumeClaim{Type: "csi", Source: "db", PerAlloc: true, AccessMode: "single-node-writer", AttachmentMode: "file-system"}
	if v := got.Volumes["data"]; v != want {
		t.Fatalf("volume = %+v, want %+v", v, want)
	}

	vol := func(f func(v *api.VolumeRequest)) func(*api.Job) {
		return func(j *api.Job) { f(j.TaskGroups[0].Volumes["data"]) }
	}
	tests := []struct {
		name   string
		mutate func(*api.Job)
		want   []string
	}{
		{"per_alloc off", vol(func(v *api.VolumeRequest) { v.PerAlloc = false }),
			[]string{"volumes.data.per_alloc: true -> false"}},
		{"type host", vol(func(v *api.VolumeRequest) { v.Type = "host" }),
			[]string{`volumes.data.type: "csi" -> "host"`}},
		{"access mode", vol(func(v *api.VolumeRequest) { v.AccessMode = "multi-node-multi-writer" }),
			[]string{`volumes.data.access_mode: "single-node-writer" -> "multi-node-multi-writer"`}},
		{"attachment mode", vol(func(v *api.VolumeRequest) { v.AttachmentMode = "block-device" }),
			[]string{`volumes.data.attachment_mode: "file-system" -> "block-device"`}},
		{"source", vol(func(v *api.VolumeRequest) { v.Source = "db2" }),
			[]string{`volumes.data.volume: "db" -> "db2"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := imported()
			tt.mutate(job)
			changed, unsupported := SpecFromJob(job)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if d := Diff(got, changed); !reflect.DeepEqual(d, tt.want) {
				t.Errorf("Diff =\n%q\nwant\n%q", d, tt.want)
			}
		})
	}
}
