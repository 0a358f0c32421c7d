package shared

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// SecretIndexesKey is the private state key holding the modify index of
// each secrets Variable berth wrote for a berth_job or berth_instance, by
// path (JSON object): the check-and-set index of its next rewrite or
// delete, and the proof that berth wrote it.
const SecretIndexesKey = "secret_variables"

// RecordSecretIndexes keeps indexes (none: the key is removed).
func RecordSecretIndexes(ctx context.Context, private PrivateData, indexes map[string]uint64, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	var value []byte
	if len(indexes) > 0 {
		value, _ = json.Marshal(indexes) // a map of numbers always marshals
	}
	diags.Append(private.SetKey(ctx, SecretIndexesKey, value)...)
}

// RecordedSecretIndexes reads what RecordSecretIndexes kept; nil when
// nothing is recorded (a state from before berth recorded them).
func RecordedSecretIndexes(ctx context.Context, private PrivateData) map[string]uint64 {
	if private == nil {
		return nil
	}
	raw, d := private.GetKey(ctx, SecretIndexesKey)
	var out map[string]uint64
	if d.HasError() || len(raw) == 0 || json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}
