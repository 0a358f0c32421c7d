package units

import "testing"

func TestParseBytes(t *testing.T) {
	ok := map[string]int64{
		"1GiB": 1 << 30, "1024MiB": 1 << 30, "1 GiB": 1 << 30, "10GB": 10_000_000_000,
		"512KB": 512_000, "512KiB": 512 << 10, "1.5GiB": 3 << 29, "1TiB": 1 << 40, "2TB": 2_000_000_000_000,
		"100": 100, "100B": 100, "0": 0, "0GiB": 0,
	}
	for in, want := range ok {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := []string{"", "GiB", "1gib", "1 Gb", "1PiB", "-1GiB", "1e3MB", "+1MB", "abc", "1.3B", "1,5GiB", "99999999999TiB"}
	for _, in := range bad {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
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

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1GiB", "1.5MB", "0", "-1", "1e9"} {
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
		if back, err := ParseBytes(FormatBytes(n)); err != nil || back != n {
			t.Fatalf("round trip of %d via %q: %d, %v", n, FormatBytes(n), back, err)
		}
	})
}
