package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// PrivateData is what Read, ModifyPlan and Update responses offer for
// private state.
type PrivateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}
