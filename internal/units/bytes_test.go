package units

import (
	"math"
	"strings"
	"testing"

	"github.com/dustin/go-humanize"
)

func TestParseBytes(t *testing.T) {
	ok := []struct {
		in   string
		want int64
	}{
		// Spellings berth accepted before it read sizes the way Nomad does;
		// they keep their meaning.
		{"1GiB", 1 << 30}, {"1024MiB", 1 << 30}, {"1 GiB", 1 << 30}, {" 1GiB ", 1 << 30}, {"10GB", 10_000_000_000},
		{"512KB", 512_000}, {"512KiB", 512 << 10}, {"1.5GiB", 3 << 29}, {"1TiB", 1 << 40}, {"2TB", 2_000_000_000_000},
		{"20MiB", 20 << 20}, {"100", 100}, {"100B", 100}, {"0", 0}, {"0GiB", 0},
		// Nomad's spellings: case-insensitive, the B optional, P and E units.
		{"20G", 20_000_000_000}, {"20GB", 20_000_000_000}, {"20gb", 20_000_000_000}, {"20GiB", 20 << 30},
		{"20Gi", 20 << 30}, {"20gib", 20 << 30}, {"1gib", 1 << 30}, {"1 Gb", 1_000_000_000},
		{"5k", 5000}, {"5Ki", 5 << 10}, {"5kB", 5000}, {"3m", 3_000_000}, {"3Mi", 3 << 20}, {"2t", 2_000_000_000_000},
		{"1PiB", 1 << 50}, {"1PB", 1_000_000_000_000_000}, {"1P", 1_000_000_000_000_000}, {"1EB", 1_000_000_000_000_000_000},
		{"2b", 2}, {"1.", 1}, {".5KB", 500}, {"0.5KiB", 512},
		// Exact, not floating point: 4.35×10⁶ is 4349999.999… as a float.
		{"4.35MB", 4_350_000}, {"1.1GB", 1_100_000_000}, {"0.3KB", 300},
	}
	for _, c := range ok {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	bad := map[string]string{
		"": "empty", "GiB": "not a number", "abc": "not a number", "-1GiB": "not a number", "1e3MB": "not a number",
		"+1MB": "not a number", "1.3B": "whole number", "1,5GiB": "comma", "1,000MB": "comma", "99999999999TiB": "too large",
		"8EiB": "too large", "1.2.3GB": "not a number", "1 G B": "not a number", "1Gibibyte": "not a number",
		"1_000MB": "not a number", "0x10MB": "not a number", "１GiB": "not a number", "1ZB": "not a number",
	}
	for in, want := range bad {
		got, err := ParseBytes(in)
		if err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBytes(%q) error %q does not say %q", in, err, want)
		}
	}
}

func TestFormatBytesRoundTrips(t *testing.T) {
	cases := map[int64]string{1 << 30: "1GiB", 3 << 29: "1536MiB", 1000: "1000B", 0: "0B", 10 << 40: "10TiB", 1 << 10: "1KiB"}
	for n, want := range cases {
		got := FormatBytes(n)
		if got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
		back, err := ParseBytes(got)
		if err != nil || back != n {
			t.Errorf("ParseBytes(FormatBytes(%d)) = %d, %v", n, back, err)
		}
	}
}

func TestMiB(t *testing.T) {
	for in, want := range map[int64]int64{0: 0, 1: 1, 1 << 20: 1, 1<<20 + 1: 2, 10 << 30: 10240} {
		if got := MiB(in); got != want {
			t.Errorf("MiB(%d) = %d, want %d", in, got, want)
		}
	}
}

// FuzzParseBytes checks that berth accepts nothing Nomad's parser rejects,
// agrees with it up to floating-point truncation, and round-trips through
// FormatBytes.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1GiB", "1.5MB", "0", "-1", "1e9", "20G", "20gi", "1,5GiB", "4.35MB", " 7 kb "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseBytes(%q) = %d: negative", s, n)
		}
		h, herr := humanize.ParseBytes(strings.TrimSpace(s))
		if herr != nil {
			t.Fatalf("ParseBytes(%q) = %d but Nomad's parser rejects it: %v", s, n, herr)
		}
		// go-humanize multiplies in floating point and truncates.
		if diff := math.Abs(float64(h) - float64(n)); diff > 1+float64(n)*1e-15 {
			t.Fatalf("ParseBytes(%q) = %d, Nomad's parser says %d", s, n, h)
		}
		if back, err := ParseBytes(FormatBytes(n)); err != nil || back != n {
			t.Fatalf("round trip of %d via %q: %d, %v", n, FormatBytes(n), back, err)
		}
	})
}
