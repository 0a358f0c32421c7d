package instance

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// JobVersion is one version of a job that Nomad still keeps: its number
// and whether Nomad marked it stable (a deployment of it succeeded).
type JobVersion struct {
	Number uint64
	Stable bool
}

// RevertRefusal says why no revert can be made to the version asked for.
// It is the user's choice that is wrong, not Nomad's answer, so the
// provider reports it at the version attribute.
type RevertRefusal struct {
	Reason string
}

func (e *RevertRefusal) Error() string { return e.Reason }

// RevertTarget picks the version a revert returns the job to, given its
// current version and the versions Nomad keeps. With requested it is that
// version, which must be kept and not be the current one; without, it is
// the newest stable version older than the current one (what an operator
// means by "roll back").
func RevertTarget(current uint64, kept []JobVersion, requested *uint64) (uint64, error) {
	kept = slices.Clone(kept)
	slices.SortFunc(kept, func(a, b JobVersion) int { return cmp.Compare(b.Number, a.Number) })
	if requested != nil {
		v := *requested
		switch {
		case v == current:
			return 0, &RevertRefusal{fmt.Sprintf("version %d is the job's current version, so there is nothing to revert to. "+
				"Nomad keeps versions %s.", v, versionList(kept))}
		case !slices.ContainsFunc(kept, func(k JobVersion) bool { return k.Number == v }):
			return 0, &RevertRefusal{fmt.Sprintf("the job has no version %d: Nomad keeps versions %s (the current one is %d; "+
				"older versions are dropped once the servers' job_tracked_versions is reached).", v, versionList(kept), current)}
		}
		return v, nil
	}
	for _, k := range kept {
		if k.Number < current && k.Stable {
			return k.Number, nil
		}
	}
	return 0, &RevertRefusal{fmt.Sprintf("no version older than the current one (%d) is stable: Nomad marks a version stable "+
		"once its deployment succeeds. Nomad keeps versions %s; set version to the one to return to.", current, versionList(kept))}
}

// versionList is kept's numbers, newest first, with the stable ones marked.
func versionList(kept []JobVersion) string {
	if len(kept) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(kept))
	for _, k := range kept {
		s := strconv.FormatUint(k.Number, 10)
		if k.Stable {
			s += " (stable)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
