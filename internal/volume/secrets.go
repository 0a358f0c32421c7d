package volume

import (
	"cmp"
	"slices"
	"strings"
)

// SecretPlaceholder stands for a CSI secret's value in text shown to users.
const SecretPlaceholder = "(secret value)"

// SecretValues lists the values of v's CSI secrets, longest first (so a
// secret that contains another is replaced whole), without empty ones.
func (v *Volume) SecretValues() []string {
	var out []string
	for _, s := range v.Secrets {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return out
}

// RedactSecrets replaces each of secrets (as SecretValues lists them) in
// text with SecretPlaceholder: a CSI plugin's error, which Nomad passes
// back, may repeat what it was given.
func RedactSecrets(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, SecretPlaceholder)
	}
	return text
}
