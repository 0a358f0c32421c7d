// Package shared is what every resource family of the Terraform layer
// uses: the provider's data (ProviderData), diagnostics from workflow
// outcomes, identities, validators, the model reflector and raw-value
// readers, list and job-action helpers, and the node reservation budget
// check. It imports no family and not the provider root; families import
// it and nothing else under internal/provider (a depguard rule in
// .golangci.yml).
package shared

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// ProviderDataFrom type-checks what Configure handed over. It returns nil
// before the provider is configured (validation runs without it).
func ProviderDataFrom(v any, diags *diag.Diagnostics) *ProviderData {
	if v == nil {
		return nil
	}
	data, ok := v.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *provider.ProviderData, got %T. This is a bug in berth; please report it.", v))
		return nil
	}
	return data
}

// AddNomadError reports a failed Nomad call: what berth tried, what Nomad
// said and what to do next. A timeout or connection failure is reported in
// berth's words (they name the redacted address), since Nomad said nothing.
func AddNomadError(diags *diag.Diagnostics, summary string, err error) {
	var connErr *nomadclient.ConnectError
	var timeoutErr *nomadclient.TimeoutError
	var versionErr *nomadclient.NomadVersionError
	switch {
	case errors.As(err, &versionErr):
		diags.AddError(summary, "Unsupported Nomad version: "+versionErr.Error()+".")
	case errors.As(err, &timeoutErr):
		diags.AddError(summary, timeoutErr.Error()+".")
	case errors.As(err, &connErr):
		diags.AddError(summary, connErr.Error())
	case nomadclient.IsForbidden(err):
		diags.AddError(summary, "Nomad refused the request (403 Permission denied): "+err.Error()+
			". Check that the provider's token (or NOMAD_TOKEN) is valid and that its ACL policies grant what the request above "+
			"needs: the provider's guide \"ACL policies for berth\" lists the capabilities of each resource.")
	default:
		diags.AddError(summary, "Nomad said: "+err.Error())
	}
}

// ProviderData is what Configure hands to resources and data sources.
type ProviderData struct {
	Nomad *nomadclient.Client
	// LedgerNamespace holds the node reservation ledgers (Nomad Variables).
	LedgerNamespace string
	// SigningKey signs berth_reservation leases; nil leaves them unsigned.
	SigningKey ed25519.PrivateKey
	// LeaseDriver runs the lease timer task.
	LeaseDriver string
	// Plans holds the node reservation requests planned in this run, for
	// the budget checks of the work placed into them; nil checks against
	// the ledger alone.
	Plans *PlannedReservations
}
