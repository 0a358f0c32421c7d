// Package names holds berth's rules for the names and IDs users type:
// names of jobs (instances and leases), volumes and node reservations,
// Nomad namespaces and Nomad node IDs. The rules are checked at plan time so
// that a name Nomad would refuse, or one that would break berth's
// "<namespace>/<name>" and "<node_id>/<name>" IDs or Nomad's URL routing,
// never reaches Nomad.
package names

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLength is the longest name berth accepts. Nomad itself sets no limit
// on job IDs or volume names, but caps namespaces and Variable paths at
// 128 characters; one limit for everything keeps the rule easy to state.
const MaxLength = 128

// Rule states the name rule in the words the documentation uses.
const Rule = "1 to 128 characters: ASCII letters, digits, `-`, `_` and `.`, starting with a letter or digit"

// Nomad Variable paths allow only [a-zA-Z0-9-_~/] (nomad/structs
// validVariablePath). No berth name forms a path: a node reservation's name
// is an item key inside the ledger Variable berth/nodes/<node-id>, where
// Nomad checks only the total size, and the path holds the node ID, a UUID.
// Rule keeps to that set except for ".", which job and volume names
// commonly use; a future name that must form a path segment needs "."
// mapped or refused.
//
// Why a name is restricted further than Nomad restricts it: Nomad refuses
// a job ID with a space or a NUL at registration, accepts "/" but uses it
// for the IDs of dispatched and periodic child jobs (and Nomad's HTTP router
// splits on it even when escaped), and "." or ".." would be path segments
// that HTTP clients collapse. A leading "-" reads as a flag to the nomad CLI.
const why = "names become Nomad job IDs or volume names, parts of berth IDs such as `<namespace>/<name>`, and segments of Nomad API URLs"

// Check reports whether name follows Rule, with the first offending
// character and why.
func Check(name string) error {
	if name == "" {
		return fmt.Errorf("the name is empty; names are %s", Rule)
	}
	if n := utf8.RuneCountInString(name); n > MaxLength {
		return fmt.Errorf("the name is %d characters long; names are %s", n, Rule)
	}
	for i, r := range name {
		if isAlnum(r) || (i > 0 && (r == '-' || r == '_' || r == '.')) {
			continue
		}
		return fmt.Errorf("%s at position %d is not allowed%s; names are %s, because %s",
			describe(r), utf8.RuneCountInString(name[:i])+1, firstHint(i, r), Rule, why)
	}
	return nil
}

// CSIVolumeRule is the rule for CSI volume names: Rule, optionally
// followed by the "[<n>]" suffix Nomad appends to a per_alloc request's
// source, so "data[0]" and "data[1]" can be the volumes of allocations 0
// and 1. Host volumes keep to Rule. The brackets are safe where CSI volume
// names go: Nomad accepts any CSI volume ID, "[" and "]" need no escaping
// in a URL path, and they are neither "/" nor a path segment of their own.
const CSIVolumeRule = Rule + ", optionally followed by a per-allocation index such as `[0]`"

// CheckCSIVolume reports whether name follows CSIVolumeRule.
func CheckCSIVolume(name string) error {
	base := name
	if i := strings.LastIndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") && isDigits(name[i+1:len(name)-1]) {
		base = name[:i]
		if n := utf8.RuneCountInString(name); n > MaxLength {
			return fmt.Errorf("the name is %d characters long; CSI volume names are %s", n, CSIVolumeRule)
		}
	}
	if err := Check(base); err != nil {
		return fmt.Errorf("%w (for CSI volumes, optionally followed by a per-allocation index such as `[0]`)", err)
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func firstHint(i int, r rune) string {
	if i == 0 && (r == '-' || r == '_' || r == '.') {
		return " as the first character"
	}
	return ""
}

func isAlnum(r rune) bool {
	return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// describe names a character so that invisible ones are visible in an
// error message.
func describe(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == '\n':
		return "a newline"
	case r == '\t':
		return "a tab"
	case r == utf8.RuneError:
		return "an invalid UTF-8 byte"
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("the control character %U", r)
	case r > 0x7f:
		return fmt.Sprintf("the non-ASCII character %q (%U)", r, r)
	default:
		return fmt.Sprintf("the character %q", r)
	}
}

// NamespaceRule states Nomad's namespace rule (nomad/structs
// validNamespaceName).
const NamespaceRule = "1 to 128 characters: ASCII letters, digits and `-`"

// CheckNamespace reports whether ns is a name Nomad accepts for a
// namespace.
func CheckNamespace(ns string) error {
	if ns == "" {
		return fmt.Errorf("the namespace is empty; Nomad namespaces are %s", NamespaceRule)
	}
	if n := utf8.RuneCountInString(ns); n > MaxLength {
		return fmt.Errorf("the namespace is %d characters long; Nomad namespaces are %s", n, NamespaceRule)
	}
	for i, r := range ns {
		if !isAlnum(r) && r != '-' {
			return fmt.Errorf("%s at position %d is not allowed; Nomad namespaces are %s",
				describe(r), utf8.RuneCountInString(ns[:i])+1, NamespaceRule)
		}
	}
	return nil
}

// LookupRule is what a name given to look up an existing Nomad object
// must satisfy. It is looser than Rule, since the object may have been made
// outside berth, but it excludes what can never name one berth can read.
const LookupRule = "not empty, without `/` or control characters"

// CheckLookup reports whether name can name an existing Nomad job or
// volume that berth can look up.
func CheckLookup(name string) error {
	if name == "" {
		return fmt.Errorf("the name is empty; a name to look up is %s", LookupRule)
	}
	for i, r := range name {
		if r == '/' || r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return fmt.Errorf("%s at position %d cannot be part of a name berth can look up; a name to look up is %s",
				describe(r), utf8.RuneCountInString(name[:i])+1, LookupRule)
		}
	}
	return nil
}

// uuidDashes are the positions of the dashes in a UUID as Nomad writes
// node IDs: 8-4-4-4-12 lowercase hex digits.
var uuidDashes = map[int]bool{8: true, 13: true, 18: true, 23: true}

const uuidLength = 36

// NodeIDRule and NodeIDPrefixRule state the node ID rules.
const (
	NodeIDRule       = "a full Nomad node ID: a UUID of 36 lowercase characters such as `5c2e7e9a-1b3f-4e6d-9a0b-3c4d5e6f7a8b` (see `nomad node status` or the `berth_nodes` data source)"
	NodeIDPrefixRule = "a Nomad node ID or a prefix of one: lowercase hex digits with dashes where the full ID has them (8-4-4-4-12)"
)

// CheckNodeID reports whether id is a full Nomad node ID.
func CheckNodeID(id string) error {
	return checkFullUUID(id, "node ID", NodeIDRule)
}

// VolumeIDRule states the rule for host volume IDs.
const VolumeIDRule = "a full Nomad volume ID: a UUID of 36 lowercase characters (see `nomad volume status -type host`)"

// CheckVolumeID reports whether id is a full Nomad host volume ID.
func CheckVolumeID(id string) error { return checkFullUUID(id, "volume ID", VolumeIDRule) }

func checkFullUUID(id, what, rule string) error {
	if err := checkUUIDShape(id, what); err != nil {
		return fmt.Errorf("%w; expected %s", err, rule)
	}
	if len(id) != uuidLength {
		return fmt.Errorf("%q has %d characters, not 36: a prefix is not enough here; expected %s", id, len(id), rule)
	}
	return nil
}

// CheckNodeIDPrefix reports whether id is a full Nomad node ID or a prefix
// of one, as Nomad's prefix lookups accept.
func CheckNodeIDPrefix(id string) error {
	if err := checkUUIDShape(id, "node ID"); err != nil {
		return fmt.Errorf("%w; expected %s", err, NodeIDPrefixRule)
	}
	return nil
}

func checkUUIDShape(id, what string) error {
	if id == "" {
		return fmt.Errorf("the %s is empty", what)
	}
	if len(id) > uuidLength {
		return fmt.Errorf("%q is longer than a %s (36 characters)", id, what)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case uuidDashes[i] && c == '-':
		case uuidDashes[i]:
			return fmt.Errorf("%q has %s at position %d where a %s has a dash", id, describeByte(id, i), i+1, what)
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			return fmt.Errorf("%q has the uppercase %q at position %d; Nomad IDs are lowercase", id, c, i+1)
		default:
			return fmt.Errorf("%q has %s at position %d where a %s has a hex digit", id, describeByte(id, i), i+1, what)
		}
	}
	return nil
}

func describeByte(s string, i int) string {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return describe(r)
}

// CheckNodeReservationID reports whether id is a node reservation ID,
// "<node_id>/<name>", with a full node ID and a name that follows Rule.
func CheckNodeReservationID(id string) error {
	node, name, ok := strings.Cut(id, "/")
	if !ok {
		return fmt.Errorf("%q has no \"/\"; a node reservation ID is `<node_id>/<name>`, for example berth_node_reservation.<label>.id", id)
	}
	if err := CheckNodeID(node); err != nil {
		return fmt.Errorf("the node part of %q is not a node ID: %w", id, err)
	}
	if err := Check(name); err != nil {
		return fmt.Errorf("the name part of %q is not a reservation name: %w", id, err)
	}
	return nil
}
