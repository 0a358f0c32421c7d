package acl

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// minTokenTTL is the shortest token TTL berth accepts: Nomad's default
// acl.token_min_expiration_ttl. Nomad reads a TTL of 0 as "never
// expires", so "0s" would make a token that was meant to be short-lived
// (an ephemeral one, even a management one) live for ever; and a token of
// a few seconds is gone before anything can use it.
const minTokenTTL = time.Minute

// checkTokenTTL refuses a ttl below minTokenTTL at attr, once. unset says
// what leaving the attribute out does, for the detail ("" when it is
// required). An unknown, null or malformed value is left to the
// framework and the duration type.
func checkTokenTTL(ttl timetypes.GoDuration, attr, unset string, diags *diag.Diagnostics) {
	if ttl.IsNull() || ttl.IsUnknown() {
		return
	}
	d, parse := ttl.ValueGoDuration()
	if parse.HasError() || d >= minTokenTTL {
		return
	}
	detail := fmt.Sprintf("%s is %s; berth requires at least %s.", attr, ttl.ValueString(), minTokenTTL)
	if d <= 0 {
		detail += " Nomad reads a TTL of 0 as no expiry at all, so this token would never expire."
	}
	diags.AddAttributeError(path.Root(attr), "Token TTL too short", detail+unset)
}
