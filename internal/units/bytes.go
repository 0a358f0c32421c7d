// Package units parses and formats the byte sizes berth accepts for volume
// capacities. Sizes are read the way Nomad reads them in volume
// specifications (go-humanize's ParseBytes: "20G" and "20GB" are 20×10⁹
// bytes, "20GiB" is 20×2³⁰, units are case-insensitive), so that equal sizes
// written differently ("1GiB", "1024MiB", "1gi") compare equal.
package units

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// Doc describes the accepted spellings for attribute documentation and
// error messages, so both say the same thing.
const Doc = "A number and an optional unit, read as Nomad reads volume capacities: " +
	"`B`, `KB`, `MB`, `GB`, `TB`, `PB`, `EB` (powers of 1000), `KiB`, `MiB`, `GiB`, `TiB`, `PiB`, `EiB` (powers of 1024); " +
	"the trailing `B` may be left out (`20G` is `20GB`), units are case-insensitive, a bare number is bytes, " +
	"and fractions are allowed when they make whole bytes (`1.5GiB`)."

// maxBytes bounds sizes well below overflow, so that sums of a few sizes
// still fit in an int64.
const maxBytes = math.MaxInt64 / 2

// ParseBytes parses a size such as "10GiB", "1.5GB", "512 mib" or "20G"
// into bytes. It accepts exactly what go-humanize's ParseBytes accepts (the
// parser Nomad uses), except that it rejects commas (go-humanize reads
// "1,5GiB" as 15GiB), fractions of a byte (go-humanize drops them) and
// sizes beyond maxBytes. The value is computed exactly rather than in
// floating point, so "4.35MB" is 4350000 bytes.
func ParseBytes(s string) (int64, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("empty size: use a number with a unit, e.g. \"10GiB\"")
	}
	if strings.Contains(in, ",") {
		return 0, fmt.Errorf("size %q contains a comma: write the number without separators, with a dot for fractions", s)
	}
	if _, err := humanize.ParseBytes(in); err != nil {
		if strings.HasPrefix(err.Error(), "too large") {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return 0, fmt.Errorf("size %q is not a number with a unit such as B, KB, KiB, MB, MiB, GB, GiB, TB, TiB", s)
	}
	num, unit := split(in)
	// The multiplier of the unit, from the same table Nomad uses; "1<unit>"
	// is exact in floating point for every unit in it.
	mult, err := humanize.ParseBytes("1" + unit)
	if err != nil {
		return 0, fmt.Errorf("size %q has an unknown unit %q", s, unit)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("size %q is not a number with a unit", s)
	}
	r.Mul(r, new(big.Rat).SetUint64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	n := r.Num()
	if !n.IsInt64() || n.Int64() > maxBytes {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n.Int64(), nil
}

// split cuts in into its leading number (digits and dots, as go-humanize
// scans it) and the unit after it.
func split(in string) (num, unit string) {
	i := strings.IndexFunc(in, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		return in, ""
	}
	return in[:i], strings.TrimSpace(in[i:])
}

// FormatBytes renders n with the largest binary unit that divides it
// exactly ("10GiB", "1536MiB", "1000B").
func FormatBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		bytes  int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// MiB converts bytes to MiB, rounding up, the unit Nomad counts disk in.
func MiB(n int64) int64 { return (n + (1 << 20) - 1) >> 20 }
