package server

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// leakyServer stands in for the framework's server in
// masked_server_test.go: every RPC logs the secrets it is given, as a
// careless resource would, through the context it was called with.
type leakyServer struct{ secrets []string }

var _ frameworkServer = leakyServer{}

func (l leakyServer) leak(ctx context.Context, rpc string) error {
	for _, secret := range l.secrets {
		tflog.Info(ctx, "rpc "+rpc+" logs "+secret, map[string]any{"rpc": rpc, "value": secret})
	}
	return nil
}

func (l leakyServer) ApplyResourceChange(ctx context.Context, _ *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return nil, l.leak(ctx, "ApplyResourceChange")
}

func (l leakyServer) CallFunction(ctx context.Context, _ *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return nil, l.leak(ctx, "CallFunction")
}

func (l leakyServer) CloseEphemeralResource(ctx context.Context, _ *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return nil, l.leak(ctx, "CloseEphemeralResource")
}

func (l leakyServer) ConfigureProvider(ctx context.Context, _ *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return nil, l.leak(ctx, "ConfigureProvider")
}

func (l leakyServer) ConfigureStateStore(ctx context.Context, _ *tfprotov6.ConfigureStateStoreRequest) (*tfprotov6.ConfigureStateStoreResponse, error) {
	return nil, l.leak(ctx, "ConfigureStateStore")
}

func (l leakyServer) DeleteState(ctx context.Context, _ *tfprotov6.DeleteStateRequest) (*tfprotov6.DeleteStateResponse, error) {
	return nil, l.leak(ctx, "DeleteState")
}

func (l leakyServer) GenerateResourceConfig(ctx context.Context, _ *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return nil, l.leak(ctx, "GenerateResourceConfig")
}

func (l leakyServer) GetFunctions(ctx context.Context, _ *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return nil, l.leak(ctx, "GetFunctions")
}

func (l leakyServer) GetMetadata(ctx context.Context, _ *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	return nil, l.leak(ctx, "GetMetadata")
}

func (l leakyServer) GetProviderSchema(ctx context.Context, _ *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return nil, l.leak(ctx, "GetProviderSchema")
}

func (l leakyServer) GetResourceIdentitySchemas(ctx context.Context, _ *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return nil, l.leak(ctx, "GetResourceIdentitySchemas")
}

func (l leakyServer) GetStates(ctx context.Context, _ *tfprotov6.GetStatesRequest) (*tfprotov6.GetStatesResponse, error) {
	return nil, l.leak(ctx, "GetStates")
}

func (l leakyServer) ImportResourceState(ctx context.Context, _ *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return nil, l.leak(ctx, "ImportResourceState")
}

func (l leakyServer) InvokeAction(ctx context.Context, _ *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	return nil, l.leak(ctx, "InvokeAction")
}

func (l leakyServer) ListResource(ctx context.Context, _ *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	return nil, l.leak(ctx, "ListResource")
}

func (l leakyServer) LockState(ctx context.Context, _ *tfprotov6.LockStateRequest) (*tfprotov6.LockStateResponse, error) {
	return nil, l.leak(ctx, "LockState")
}

func (l leakyServer) MoveResourceState(ctx context.Context, _ *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return nil, l.leak(ctx, "MoveResourceState")
}

func (l leakyServer) OpenEphemeralResource(ctx context.Context, _ *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return nil, l.leak(ctx, "OpenEphemeralResource")
}

func (l leakyServer) PlanAction(ctx context.Context, _ *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return nil, l.leak(ctx, "PlanAction")
}

func (l leakyServer) PlanResourceChange(ctx context.Context, _ *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return nil, l.leak(ctx, "PlanResourceChange")
}

func (l leakyServer) ReadDataSource(ctx context.Context, _ *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return nil, l.leak(ctx, "ReadDataSource")
}

func (l leakyServer) ReadResource(ctx context.Context, _ *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return nil, l.leak(ctx, "ReadResource")
}

func (l leakyServer) ReadStateBytes(ctx context.Context, _ *tfprotov6.ReadStateBytesRequest) (*tfprotov6.ReadStateBytesStream, error) {
	return nil, l.leak(ctx, "ReadStateBytes")
}

func (l leakyServer) RenewEphemeralResource(ctx context.Context, _ *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return nil, l.leak(ctx, "RenewEphemeralResource")
}

func (l leakyServer) StopProvider(ctx context.Context, _ *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return nil, l.leak(ctx, "StopProvider")
}

func (l leakyServer) UnlockState(ctx context.Context, _ *tfprotov6.UnlockStateRequest) (*tfprotov6.UnlockStateResponse, error) {
	return nil, l.leak(ctx, "UnlockState")
}

func (l leakyServer) UpgradeResourceIdentity(ctx context.Context, _ *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return nil, l.leak(ctx, "UpgradeResourceIdentity")
}

func (l leakyServer) UpgradeResourceState(ctx context.Context, _ *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return nil, l.leak(ctx, "UpgradeResourceState")
}

func (l leakyServer) ValidateActionConfig(ctx context.Context, _ *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateActionConfig")
}

func (l leakyServer) ValidateDataResourceConfig(ctx context.Context, _ *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateDataResourceConfig")
}

func (l leakyServer) ValidateEphemeralResourceConfig(ctx context.Context, _ *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateEphemeralResourceConfig")
}

func (l leakyServer) ValidateListResourceConfig(ctx context.Context, _ *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateListResourceConfig")
}

func (l leakyServer) ValidateProviderConfig(ctx context.Context, _ *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateProviderConfig")
}

func (l leakyServer) ValidateResourceConfig(ctx context.Context, _ *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateResourceConfig")
}

func (l leakyServer) ValidateStateStoreConfig(ctx context.Context, _ *tfprotov6.ValidateStateStoreConfigRequest) (*tfprotov6.ValidateStateStoreConfigResponse, error) {
	return nil, l.leak(ctx, "ValidateStateStoreConfig")
}

func (l leakyServer) WriteStateBytes(ctx context.Context, _ *tfprotov6.WriteStateBytesStream) (*tfprotov6.WriteStateBytesResponse, error) {
	return nil, l.leak(ctx, "WriteStateBytes")
}
