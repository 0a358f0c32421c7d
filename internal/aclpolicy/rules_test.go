package aclpolicy_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy/aclpolicytest"
)

// TestCheckRules checks berth's words for every case of the table; that
// Nomad judges each case the same way is TestAccACLPolicyRules_agreeWithNomad.
func TestCheckRules(t *testing.T) {
	for _, c := range aclpolicytest.Cases {
		err := aclpolicy.CheckRules(c.Rules)
		switch {
		case c.Refusal == "" && err != nil:
			t.Errorf("%s: refused: %v", c.Name, err)
		case c.Refusal != "" && err == nil:
			t.Errorf("%s: accepted, want a refusal containing %q", c.Name, c.Refusal)
		case c.Refusal != "" && !strings.Contains(err.Error(), c.Refusal):
			t.Errorf("%s: %q, want it to contain %q", c.Name, err, c.Refusal)
		case err != nil && goValue.MatchString(err.Error()):
			t.Errorf("%s: the message shows Go values: %q", c.Name, err)
		}
	}
}

// goValue matches what a Go value or type looks like when printed: &T{,
// (*pkg.T), []string(nil).
var goValue = regexp.MustCompile(`&[A-Za-z.]+\{|\(\*?[a-z]+\.[A-Za-z]+\)|\(nil\)`)
