package instance

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// unset is how Diff shows a map entry that exists on one side only.
const unset = "(unset)"

// Diff lists the managed fields that differ between a and b, one line per
// field, as `path: <a> -> <b>`, e.g. `services.web.env.LOG_LEVEL: "info" ->
// "debug"` or `count: 2 -> 3`. A service, port, check or volume present on
// one side only is one line: `services.worker: added` (only in b) or
// `removed`. A service's mounts are compared as one ordered list.
//
// Both specs are normalized first (see Normalize), so nil vs empty and ""
// vs Nomad's defaults are not differences. Count is compared only when both
// sides set it: nil means berth does not manage the count. The order is
// deterministic: top-level fields in schema order, then map entries by key.
func Diff(a, b Spec) []string {
	a, b = Normalize(a), Normalize(b)
	d := &differ{}
	d.str("name", a.Name, b.Name)
	d.str("namespace", a.Namespace, b.Namespace)
	d.val("datacenters", listText(a.Datacenters), listText(b.Datacenters))
	d.str("node_pool", a.NodePool, b.NodePool)
	d.str("node_reservation node", a.PinNode, b.PinNode)
	if a.Count != nil && b.Count != nil {
		d.val("count", strconv.Itoa(*a.Count), strconv.Itoa(*b.Count))
	}
	d.val("running", strconv.FormatBool(a.Running), strconv.FormatBool(b.Running))
	d.str("network_mode", a.NetworkMode, b.NetworkMode)
	diffStringMap(d, "meta", a.Meta, b.Meta)

	for _, name := range unionKeys(a.Services, b.Services) {
		sa, inA := a.Services[name]
		sb, inB := b.Services[name]
		if !d.presence("services."+name, inA, inB) {
			diffService(d, "services."+name, sa, sb)
		}
	}
	for _, name := range unionKeys(a.Volumes, b.Volumes) {
		va, inA := a.Volumes[name]
		vb, inB := b.Volumes[name]
		if p := "volumes." + name; !d.presence(p, inA, inB) {
			// "volume" is the Terraform attribute holding Source.
			d.str(p+".volume", va.Source, vb.Source)
			d.val(p+".read_only", strconv.FormatBool(va.ReadOnly), strconv.FormatBool(vb.ReadOnly))
			d.str(p+".access_mode", va.AccessMode, vb.AccessMode)
			d.str(p+".attachment_mode", va.AttachmentMode, vb.AttachmentMode)
		}
	}

	u, v := a.Update, b.Update
	d.val("update.max_parallel", strconv.Itoa(u.MaxParallel), strconv.Itoa(v.MaxParallel))
	d.val("update.min_healthy_time", u.MinHealthyTime.String(), v.MinHealthyTime.String())
	d.val("update.healthy_deadline", u.HealthyDeadline.String(), v.HealthyDeadline.String())
	d.val("update.progress_deadline", u.ProgressDeadline.String(), v.ProgressDeadline.String())
	d.val("update.auto_revert", strconv.FormatBool(u.AutoRevert), strconv.FormatBool(v.AutoRevert))
	d.val("update.canary", strconv.Itoa(u.Canary), strconv.Itoa(v.Canary))
	return d.lines
}

// OnlyCountDiffers reports whether a and b differ in Count and nothing else,
// so the caller can use Nomad's scale API instead of re-registering the job
// (which would create a new job version). It is false when either Count is
// nil or the counts are equal.
func OnlyCountDiffers(a, b Spec) bool {
	if a.Count == nil || b.Count == nil || *a.Count == *b.Count {
		return false
	}
	a.Count, b.Count = nil, nil
	return len(Diff(a, b)) == 0
}

func diffService(d *differ, at string, a, b Service) {
	d.str(at+".role", string(a.Role), string(b.Role))
	d.str(at+".driver", a.Driver, b.Driver)
	d.str(at+".image", a.Image, b.Image)
	d.str(at+".command", a.Command, b.Command)
	d.val(at+".args", listText(a.Args), listText(b.Args))
	for _, k := range unionKeys(a.Config, b.Config) {
		va, inA := a.Config[k]
		vb, inB := b.Config[k]
		d.val(at+".config."+k, optional(jsonText(va), inA), optional(jsonText(vb), inB))
	}
	diffStringMap(d, at+".env", a.Env, b.Env)
	d.val(at+".cpu", strconv.Itoa(a.CPU), strconv.Itoa(b.CPU))
	d.val(at+".memory", strconv.Itoa(a.Memory), strconv.Itoa(b.Memory))
	d.val(at+".memory_max", strconv.Itoa(a.MemoryMax), strconv.Itoa(b.MemoryMax))
	for _, label := range unionKeys(a.Ports, b.Ports) {
		pa, inA := a.Ports[label]
		pb, inB := b.Ports[label]
		p := at + ".ports." + label
		if !d.presence(p, inA, inB) {
			d.val(p+".to", strconv.Itoa(pa.To), strconv.Itoa(pb.To))
			d.val(p+".static", strconv.Itoa(pa.Static), strconv.Itoa(pb.Static))
		}
	}
	// Mounts are one line: the list is ordered, so an element-wise diff of a
	// reordered list would only be noise.
	d.val(at+".mounts", mountsText(a.Mounts), mountsText(b.Mounts))
	if !d.presence(at+".check", a.Check != nil, b.Check != nil) && a.Check != nil {
		ca, cb := a.Check, b.Check
		d.str(at+".check.type", ca.Type, cb.Type)
		d.str(at+".check.port", ca.Port, cb.Port)
		d.str(at+".check.path", ca.Path, cb.Path)
		d.val(at+".check.interval", ca.Interval.String(), cb.Interval.String())
		d.val(at+".check.timeout", ca.Timeout.String(), cb.Timeout.String())
	}
}

func diffStringMap(d *differ, at string, a, b map[string]string) {
	for _, k := range unionKeys(a, b) {
		va, inA := a[k]
		vb, inB := b[k]
		d.val(at+"."+k, optional(strconv.Quote(va), inA), optional(strconv.Quote(vb), inB))
	}
}

type differ struct {
	lines []string
}

// val records a difference between two already formatted values.
func (d *differ) val(path, a, b string) {
	if a != b {
		d.lines = append(d.lines, fmt.Sprintf("%s: %s -> %s", path, a, b))
	}
}

func (d *differ) str(path, a, b string) {
	d.val(path, strconv.Quote(a), strconv.Quote(b))
}

// presence records an object that exists on one side only and reports
// whether it did, in which case its fields are not compared.
func (d *differ) presence(path string, inA, inB bool) bool {
	switch {
	case inA && !inB:
		d.lines = append(d.lines, path+": removed")
	case !inA && inB:
		d.lines = append(d.lines, path+": added")
	default:
		return false
	}
	return true
}

func optional(formatted string, present bool) string {
	if !present {
		return unset
	}
	return formatted
}

// jsonText formats a value compactly; encoding/json sorts map keys, so equal
// values always format the same.
func jsonText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(raw)
}

// listText formats a string list as JSON, with nil shown as [] since
// Normalize turns empty lists into nil.
func listText(l []string) string {
	if l == nil {
		return "[]"
	}
	return jsonText(l)
}

// mountsText formats mounts as a JSON list with the Terraform attribute
// names, [] when there are none.
func mountsText(mounts []Mount) string {
	type mount struct {
		Volume      string `json:"volume"`
		Destination string `json:"destination"`
		ReadOnly    bool   `json:"read_only"`
	}
	out := make([]mount, 0, len(mounts))
	for _, m := range mounts {
		out = append(out, mount(m))
	}
	return jsonText(out)
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := make(map[string]V, len(a)+len(b))
	for k, v := range a {
		seen[k] = v
	}
	for k, v := range b {
		seen[k] = v
	}
	return sortedKeys(seen)
}
