// Package units parses and formats the human byte sizes berth accepts for
// volume capacities ("1GiB", "512MB"), so that equal sizes written
// differently ("1GiB", "1024MiB") compare equal.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// unit is one accepted suffix and its size in bytes.
type unit struct {
	suffix string
	bytes  int64
}

// Units lists every accepted suffix, longest first so "KiB" wins over "B";
// documentation and error messages use this list.
var Units = []unit{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"TB", 1000 * 1000 * 1000 * 1000},
	{"B", 1},
}

// Suffixes lists the accepted suffixes in a readable order.
var Suffixes = []string{"B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB"}

// ParseBytes parses "<number><unit>", e.g. "10GiB", "1.5GB", "512 MiB",
// into bytes. Units are case-sensitive as written in Suffixes; a bare
// number is bytes. Fractions are allowed when the result is a whole number
// of bytes.
func ParseBytes(s string) (int64, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("empty size: use a number with a unit, e.g. \"10GiB\"")
	}
	mult := int64(1)
	num := in
	for _, u := range Units {
		if strings.HasSuffix(in, u.suffix) {
			mult, num = u.bytes, strings.TrimSpace(strings.TrimSuffix(in, u.suffix))
			break
		}
	}
	if num == "" {
		return 0, fmt.Errorf("size %q has no number", s)
	}
	if strings.ContainsAny(num, "eE") || strings.HasPrefix(num, "+") {
		return 0, fmt.Errorf("size %q is not a plain number with a unit (%s)", s, strings.Join(Suffixes, ", "))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is not a number with a unit (%s)", s, strings.Join(Suffixes, ", "))
	}
	if f < 0 {
		return 0, fmt.Errorf("size %q is negative", s)
	}
	b := f * float64(mult)
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	return int64(b), nil
}

// FormatBytes renders n with the largest binary unit that divides it
// exactly ("10GiB", "1536MiB", "1000B").
func FormatBytes(n int64) string {
	for _, u := range []unit{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// MiB converts bytes to MiB, rounding up, the unit Nomad counts disk in.
func MiB(n int64) int64 { return (n + (1 << 20) - 1) >> 20 }
