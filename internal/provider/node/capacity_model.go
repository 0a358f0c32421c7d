package node

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// capacityModel is cpu/memory/disk as every capacity object reports it:
// the node data sources' allocatable/allocated/reserved/free and a node
// reservation's used.
type capacityModel struct {
	CPU    types.Int64 `tfsdk:"cpu"`
	Memory types.Int64 `tfsdk:"memory"`
	Disk   types.Int64 `tfsdk:"disk"`
}

func newCapacityModel(r capacity.Resources) capacityModel {
	return capacityModel{CPU: types.Int64Value(r.CPU), Memory: types.Int64Value(r.MemoryMB), Disk: types.Int64Value(r.DiskMB)}
}
