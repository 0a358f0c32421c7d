package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewJWKSDataSource builds the berth_jwks data source.
func NewJWKSDataSource() datasource.DataSource {
	return shared.NewDataSource("jwks", jwksDataSourceSchema, readJwks)
}

type jwksModel struct {
	Keys []jwksKeyModel `tfsdk:"keys"`
}

type jwksKeyModel struct {
	KeyID     types.String `tfsdk:"key_id"`
	Algorithm types.String `tfsdk:"algorithm"`
	KeyType   types.String `tfsdk:"key_type"`
	Use       types.String `tfsdk:"use"`
	PEM       types.String `tfsdk:"public_key_pem"`
}

func jwksDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The public keys that sign the cluster's workload identities (`/.well-known/jwks.json`), " +
			"for a service that verifies them: Vault's or a cloud's JWT auth, Consul. Needs no token.",
		Attributes: map[string]schema.Attribute{
			"keys": shared.ComputedObjects("The keys, sorted by key ID.", map[string]schema.Attribute{
				"key_id":         shared.ComputedString("Key ID (`kid`), which signed identities name in their header."),
				"algorithm":      shared.ComputedString("Signing algorithm (`alg`), e.g. `RS256`."),
				"key_type":       shared.ComputedString("Key type (`kty`): `RSA`, `OKP` or `EC`."),
				"use":            shared.ComputedString("Intended use (`use`): `sig`."),
				"public_key_pem": shared.ComputedString("The public key as a PEM `PUBLIC KEY` block (PKIX)."),
			}),
		},
	}
}

func readJwks(ctx context.Context, data *shared.ProviderData, m *jwksModel, diags *diag.Diagnostics) {
	keys, err := data.Nomad.WorkloadIdentityKeys(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the workload identity keys", err)
		return
	}
	*m = jwksModel{Keys: make([]jwksKeyModel, 0, len(keys))}
	for _, k := range keys {
		m.Keys = append(m.Keys, jwksKeyModel{KeyID: types.StringValue(k.ID), Algorithm: types.StringValue(k.Algorithm),
			KeyType: types.StringValue(k.Type), Use: types.StringValue(k.Use), PEM: types.StringValue(k.PEM)})
	}
}
