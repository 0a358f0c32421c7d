package names

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		want string // "" = valid; else a substring of the error
	}{
		{"web", ""},
		{"a", ""},
		{"9", ""},
		{"Web-1_b.v2", ""},
		{"x.", ""},
		{strings.Repeat("a", 128), ""},
		{"", "the name is empty"},
		{strings.Repeat("a", 129), "129 characters long"},
		{"a b", "a space at position 2"},
		{"a/b", "the character '/' at position 2"},
		{"a\nb", "a newline at position 2"},
		{"a\tb", "a tab at position 2"},
		{"a\x00b", "the control character U+0000 at position 2"},
		{"a\x7f", "the control character U+007F at position 2"},
		{"-web", "'-' at position 1 is not allowed as the first character"},
		{"_web", "as the first character"},
		{".", "as the first character"},
		{"..", "as the first character"},
		{"a?b", "'?' at position 2"},
		{"a%2F", "'%' at position 2"},
		{"a#b", "'#'"},
		{"a:b", "':'"},
		{"a@b", "'@'"},
		{"a~b", "'~'"},
		{"caf\u00e9", "the non-ASCII character 'é' (U+00E9) at position 4"},
		{"a\xffb", "an invalid UTF-8 byte at position 2"},
		{"ab\u200b", "U+200B"},
	}
	for _, tc := range cases {
		err := Check(tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want valid", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("Check(%q) = nil, want an error with %q", tc.name, tc.want)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("Check(%q) = %q, want it to contain %q", tc.name, err, tc.want)
		case err != nil && !strings.Contains(err.Error(), Rule):
			t.Errorf("Check(%q) = %q does not state the rule", tc.name, err)
		}
	}
}

func TestCheckNamespace(t *testing.T) {
	for _, ok := range []string{"default", "team-a", "A1", strings.Repeat("n", 128)} {
		if err := CheckNamespace(ok); err != nil {
			t.Errorf("CheckNamespace(%q) = %v, want valid", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"":                       "empty",
		"team_a":                 "'_' at position 5",
		"a b":                    "a space at position 2",
		"a/b":                    "'/'",
		"*":                      "'*'",
		strings.Repeat("n", 129): "129 characters",
	} {
		err := CheckNamespace(bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckNamespace(%q) = %v, want an error with %q", bad, err, want)
		}
	}
}

func TestCheckLookup(t *testing.T) {
	for _, ok := range []string{"web", "made outside:berth", "a.b"} {
		if err := CheckLookup(ok); err != nil {
			t.Errorf("CheckLookup(%q) = %v, want valid", ok, err)
		}
	}
	for _, bad := range []string{"", "a/b", "a\nb", "a\x00", "\xff"} {
		if err := CheckLookup(bad); err == nil {
			t.Errorf("CheckLookup(%q) = nil, want an error", bad)
		}
	}
}

const fullID = "5c2e7e9a-1b3f-4e6d-9a0b-3c4d5e6f7a8b"

func TestCheckNodeID(t *testing.T) {
	if err := CheckNodeID(fullID); err != nil {
		t.Errorf("CheckNodeID(full) = %v", err)
	}
	for bad, want := range map[string]string{
		"":                                     "empty",
		fullID[:8]:                             "a prefix is not enough",
		fullID[:35]:                            "35 characters",
		fullID + "0":                           "longer than a node ID",
		strings.ToUpper(fullID):                "uppercase",
		"5c2e7e9a_1b3f-4e6d-9a0b-3c4d5e6f7a8b": "'_' at position 9 where a node ID has a dash",
		"5c2e7e9g-1b3f-4e6d-9a0b-3c4d5e6f7a8b": "'g' at position 8 where a node ID has a hex digit",
		"5c2e7e9a-1b3f-4e6d-9a0b-3c4d5e6f7a8/": "'/' at position 36",
		"../../v1/jobs":                        "'.'",
		"5c2e7e9a 1b3f":                        "a space at position 9",
	} {
		err := CheckNodeID(bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckNodeID(%q) = %v, want an error with %q", bad, err, want)
		}
	}
}

func TestCheckVolumeID(t *testing.T) {
	if err := CheckVolumeID(fullID); err != nil {
		t.Errorf("CheckVolumeID(full) = %v", err)
	}
	for _, bad := range []string{"", "data", fullID[:8], fullID + "/x"} {
		if err := CheckVolumeID(bad); err == nil || !strings.Contains(err.Error(), "volume ID") {
			t.Errorf("CheckVolumeID(%q) = %v, want an error about a volume ID", bad, err)
		}
	}
}

func TestCheckNodeIDPrefix(t *testing.T) {
	for _, ok := range []string{"5", "5c", "5c2e7e9a", "5c2e7e9a-", "5c2e7e9a-1b", fullID} {
		if err := CheckNodeIDPrefix(ok); err != nil {
			t.Errorf("CheckNodeIDPrefix(%q) = %v, want valid", ok, err)
		}
	}
	for _, bad := range []string{"", "node-1", "5c2e7e9a1", "5C", "5c?", fullID + "-"} {
		if err := CheckNodeIDPrefix(bad); err == nil {
			t.Errorf("CheckNodeIDPrefix(%q) = nil, want an error", bad)
		}
	}
}

func TestCheckNodeReservationID(t *testing.T) {
	if err := CheckNodeReservationID(fullID + "/web"); err != nil {
		t.Errorf("valid reservation ID: %v", err)
	}
	for bad, want := range map[string]string{
		"web":               `has no "/"`,
		fullID[:8] + "/web": "node part",
		fullID + "/":        "name part",
		fullID + "/a/b":     "name part",
		fullID + "/a b":     "a space",
		"/web":              "node ID is empty",
	} {
		err := CheckNodeReservationID(bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckNodeReservationID(%q) = %v, want an error with %q", bad, err, want)
		}
	}
}

// ruleRE is Rule as a regular expression, written independently of
// Check's loop so the fuzz test compares two implementations.
var ruleRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// FuzzCheck: Check agrees with the regular expression, and nothing it
// accepts contains a character that breaks an ID, a URL path or Nomad.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"web", "a b", "a/b", "", "-x", "..", "a\n", "é", strings.Repeat("z", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s)
		if (err == nil) != ruleRE.MatchString(s) {
			t.Fatalf("Check(%q) = %v, but the rule's regexp says valid=%v", s, err, ruleRE.MatchString(s))
		}
		if err == nil {
			if strings.ContainsAny(s, "/ ?#%\x00\n") || !utf8.ValidString(s) || s == "." || s == ".." {
				t.Fatalf("Check accepted %q", s)
			}
			// An accepted name is also a valid lookup name.
			if CheckLookup(s) != nil {
				t.Fatalf("CheckLookup refuses %q, which Check accepts", s)
			}
		}
	})
}

// FuzzCheckNodeID: every full ID accepted is also an accepted prefix, and
// so is each of its prefixes.
func FuzzCheckNodeID(f *testing.F) {
	for _, s := range []string{fullID, fullID[:9], "zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckNodeID(s) == nil {
			for i := 1; i <= len(s); i++ {
				if err := CheckNodeIDPrefix(s[:i]); err != nil {
					t.Fatalf("full ID %q accepted, its prefix %q refused: %v", s, s[:i], err)
				}
			}
		}
		if CheckNodeIDPrefix(s) == nil && !regexp.MustCompile(`^[0-9a-f-]{1,36}$`).MatchString(s) {
			t.Fatalf("CheckNodeIDPrefix accepted %q", s)
		}
	})
}

func TestCheckCSIVolume(t *testing.T) {
	cases := []struct {
		name string
		want string // "" = valid; else a substring of the error
	}{
		{"data", ""},
		{"data[0]", ""},
		{"data[12]", ""},
		{"db.v2[3]", ""},
		{strings.Repeat("a", 125) + "[0]", ""},
		{strings.Repeat("a", 126) + "[0]", "129 characters long"},
		{"[0]", "'[' at position 1"},
		{"data[]", "'[' at position 5"},
		{"data[x]", "'[' at position 5"},
		{"data[0][1]", "'[' at position 5"},
		{"data[0", "'[' at position 5"},
		{"da]ta", "']' at position 3"},
		{"a/b[0]", "'/' at position 2"},
		{"", "the name is empty"},
	}
	for _, tc := range cases {
		err := CheckCSIVolume(tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckCSIVolume(%q) = %v, want valid", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("CheckCSIVolume(%q) = nil, want an error with %q", tc.name, tc.want)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("CheckCSIVolume(%q) = %q, want it to contain %q", tc.name, err, tc.want)
		case err != nil && !strings.Contains(err.Error(), "[0]"):
			t.Errorf("CheckCSIVolume(%q) = %q does not state the suffix rule", tc.name, err)
		}
	}
	// Host volume names keep the plain rule.
	if err := Check("data[0]"); err == nil {
		t.Error(`Check("data[0]") = nil, want an error`)
	}
}
