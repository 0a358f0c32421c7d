package instance

import "github.com/berthhq/terraform-provider-berth/internal/drift"

// Diff lists the managed fields that differ between a and b, one line per
// field, as `path: <a> -> <b>`, e.g. `services.web.env.LOG_LEVEL: "info" ->
// "debug"` or `count: 2 -> 3`. A service, port, check or volume present on
// one side only is one line: `services.worker: added` (only in b) or
// `removed`. A service's mounts are compared as one ordered list.
//
// Both specs are normalized first (see Normalize), so nil vs empty and ""
// vs Nomad's defaults are not differences. Replicas are compared only when both
// sides set them: nil means berth does not manage the count. The order is
// deterministic: top-level fields in schema order, then map entries by key.
// The comparison is drift.Diff's: tags on Spec's fields decide it.
func Diff(a, b Spec) []string {
	return drift.Diff(Normalize(a), Normalize(b))
}

// OnlyReplicasDiffer reports whether a and b differ in Replicas and nothing else,
// so the caller can use Nomad's scale API instead of re-registering the job
// (which would create a new job version). It is false when either Replicas is
// nil or the counts are equal.
func OnlyReplicasDiffer(a, b Spec) bool {
	if a.Replicas == nil || b.Replicas == nil || *a.Replicas == *b.Replicas {
		return false
	}
	a.Replicas, b.Replicas = nil, nil
	return len(Diff(a, b)) == 0
}
