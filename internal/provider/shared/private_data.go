package shared

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// PrivateData is what Read, ModifyPlan and Update responses offer for
// private state.
type PrivateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// ReadPrivateJSON is the value a resource recorded under key (nil when
// there is none); what names it in the error a damaged record gives, and
// hint, when set, says how to recover.
func ReadPrivateJSON[T any](ctx context.Context, p PrivateData, key, what, hint string, diags *diag.Diagnostics) *T {
	raw, d := p.GetKey(ctx, key)
	if diags.Append(d...); len(raw) == 0 {
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		detail := "berth's private state is damaged: " + err.Error() + "."
		if hint != "" {
			detail += " " + hint
		}
		diags.AddError("Could not read "+what, detail)
		return nil
	}
	return &v
}

// WritePrivateJSON records v under key; what names it in the error.
func WritePrivateJSON(ctx context.Context, p PrivateData, key, what string, v any, diags *diag.Diagnostics) {
	raw, err := json.Marshal(v)
	if err != nil {
		diags.AddError("Could not record "+what, err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, key, raw)...)
}
