package server

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Masking at the protocol server: every RPC the server answers masks the
// provider's secrets (token, header values, the address's password; see
// nomadclient.Client.MaskSecrets) in the context before any of berth's code
// or the framework's sees it, so no resource, data source, list resource,
// action or function can forget to. server embeds nothing: each RPC of
// frameworkServer is one of its own methods below (the shortcuts' four in
// server.go), so an RPC a new version of terraform-plugin-go adds does
// not compile until it is written here, masked (masked_server_test.go
// checks each one). Before Configure there is nothing to mask; Configure
// masks its own context once it has built the client.

// mask returns ctx with the configured provider's secrets masked in every
// log line written through it.
func (s *server) mask(ctx context.Context) context.Context {
	if s.configured == nil {
		return ctx
	}
	if data := s.configured.Load(); data != nil {
		return data.Nomad.MaskSecrets(ctx)
	}
	return ctx
}

func (s *server) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return s.frameworkServer.CallFunction(s.mask(ctx), req)
}

func (s *server) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return s.frameworkServer.CloseEphemeralResource(s.mask(ctx), req)
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return s.frameworkServer.ConfigureProvider(s.mask(ctx), req)
}

func (s *server) ConfigureStateStore(ctx context.Context, req *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	return s.frameworkServer.ConfigureStateStore(s.mask(ctx), req)
}

func (s *server) DeleteState(ctx context.Context, req *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	return s.frameworkServer.DeleteState(s.mask(ctx), req)
}

func (s *server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return s.frameworkServer.GenerateResourceConfig(s.mask(ctx), req)
}

func (s *server) GetFunctions(ctx context.Context, req *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return s.frameworkServer.GetFunctions(s.mask(ctx), req)
}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return s.frameworkServer.GetMetadata(s.mask(ctx), req)
}

func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.frameworkServer.GetProviderSchema(s.mask(ctx), req)
}

func (s *server) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return s.frameworkServer.GetResourceIdentitySchemas(s.mask(ctx), req)
}

func (s *server) GetStates(ctx context.Context, req *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	return s.frameworkServer.GetStates(s.mask(ctx), req)
}

// ImportResourceState masks, besides the provider's secrets, the import ID
// of a type imported by a token's accessor ID (secretImportTypes): the
// accessor grants nothing alone, but a secret pasted in its place would.
// The ID is masked in every log line, and in the diagnostics the answer
// carries, whichever code wrote them.
func (s *server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	ctx = s.mask(ctx)
	id := strings.TrimSpace(req.ID)
	if !secretImportTypes[req.TypeName] || id == "" {
		return s.frameworkServer.ImportResourceState(ctx, req)
	}
	ctx = tflog.MaskMessageStrings(ctx, id)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, id)
	resp, err := s.frameworkServer.ImportResourceState(ctx, req)
	if resp != nil {
		maskDiagnostics(resp.Diagnostics, id)
	}
	return resp, err
}

// secretImportTypes are the resources whose import ID is an ACL token's
// accessor ID.
var secretImportTypes = map[string]bool{"berth_acl_token": true, "berth_acl_bootstrap": true}

// maskedValue replaces a masked string, as tflog's masking does.
const maskedValue = "***"

// maskDiagnostics replaces secret in each diagnostic's summary and detail.
func maskDiagnostics(diags []*tfprotov6.Diagnostic, secret string) {
	for _, d := range diags {
		if d != nil {
			d.Summary = strings.ReplaceAll(d.Summary, secret, maskedValue)
			d.Detail = strings.ReplaceAll(d.Detail, secret, maskedValue)
		}
	}
}

func (s *server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	return s.frameworkServer.InvokeAction(s.mask(ctx), req)
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	return s.frameworkServer.ListResource(s.mask(ctx), req)
}

func (s *server) LockState(ctx context.Context, req *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	return s.frameworkServer.LockState(s.mask(ctx), req)
}

func (s *server) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return s.frameworkServer.MoveResourceState(s.mask(ctx), req)
}

func (s *server) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return s.frameworkServer.OpenEphemeralResource(s.mask(ctx), req)
}

func (s *server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return s.frameworkServer.PlanAction(s.mask(ctx), req)
}

func (s *server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return s.frameworkServer.ReadDataSource(s.mask(ctx), req)
}

func (s *server) ReadStateBytes(ctx context.Context, req *tfprotov6.ReadStateBytesRequest) (*tfprotov6.ReadStateBytesStream, error) {
	return s.frameworkServer.ReadStateBytes(s.mask(ctx), req)
}

func (s *server) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return s.frameworkServer.RenewEphemeralResource(s.mask(ctx), req)
}

func (s *server) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return s.frameworkServer.StopProvider(s.mask(ctx), req)
}

func (s *server) UnlockState(ctx context.Context, req *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	return s.frameworkServer.UnlockState(s.mask(ctx), req)
}

func (s *server) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return s.frameworkServer.UpgradeResourceIdentity(s.mask(ctx), req)
}

func (s *server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return s.frameworkServer.ValidateActionConfig(s.mask(ctx), req)
}

func (s *server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return s.frameworkServer.ValidateDataResourceConfig(s.mask(ctx), req)
}

func (s *server) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return s.frameworkServer.ValidateEphemeralResourceConfig(s.mask(ctx), req)
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return s.frameworkServer.ValidateListResourceConfig(s.mask(ctx), req)
}

func (s *server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return s.frameworkServer.ValidateProviderConfig(s.mask(ctx), req)
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return s.frameworkServer.ValidateResourceConfig(s.mask(ctx), req)
}

func (s *server) ValidateStateStoreConfig(ctx context.Context, req *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	return s.frameworkServer.ValidateStateStoreConfig(s.mask(ctx), req)
}

func (s *server) WriteStateBytes(ctx context.Context, req *tfprotov6.WriteStateBytesStream) (*tfprotov6.WriteStateBytesResponse, error) {
	return s.frameworkServer.WriteStateBytes(s.mask(ctx), req)
}
