package acctest

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchInstanceValues returns the configuration and the state of the bench
// job (make bench): one raw_exec service with a command and args, an update
// block, one running allocation.
func BenchInstanceValues(typ tftypes.Object) (config, state tftypes.Value) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n))) }
	boolean := func(v bool) tftypes.Value { return tftypes.NewValue(tftypes.Bool, v) }
	strList := func(ss ...string) tftypes.Value {
		vs := make([]tftypes.Value, len(ss))
		for i, s := range ss {
			vs[i] = str(s)
		}
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	svcMap := typ.AttributeTypes["services"].(tftypes.Map)
	svcType := svcMap.ElementType.(tftypes.Object)
	updType := typ.AttributeTypes["update"].(tftypes.Object)

	svcConfig := map[string]tftypes.Value{"driver": str("raw_exec"), "command": str("/bin/sleep"), "args": strList("3600"), "cpu": num(20), "memory": num(16)}
	svcState := map[string]tftypes.Value{"role": str("main")}
	for k, v := range svcConfig {
		svcState[k] = v
	}
	upd := map[string]tftypes.Value{"max_parallel": num(1), "min_healthy_time": str("1s")}
	updState := map[string]tftypes.Value{"healthy_deadline": str("5m"), "progress_deadline": str("10m"), "auto_revert": boolean(false), "canary": num(0)}
	for k, v := range upd {
		updState[k] = v
	}
	top := map[string]tftypes.Value{"name": str("bench-1"), "wait_for_healthy": boolean(false)}
	topState := map[string]tftypes.Value{
		"id": str("default/bench-1"), "namespace": str("default"), "datacenters": strList("*"), "node_pool": str("default"),
		"replicas": num(1), "running": boolean(true), "network_mode": str("host"), "purge_on_destroy": boolean(true),
		"job_version": num(0), "job_modify_index": num(42), "deployment_id": str(""), "deployment_status": str(""),
	}
	for k, v := range top {
		topState[k] = v
	}
	top["services"] = tftypes.NewValue(svcMap, map[string]tftypes.Value{"app": ObjectWith(svcType, svcConfig)})
	top["update"] = ObjectWith(updType, upd)
	topState["services"] = tftypes.NewValue(svcMap, map[string]tftypes.Value{"app": ObjectWith(svcType, svcState)})
	topState["update"] = ObjectWith(updType, updState)
	return ObjectWith(typ, top), ObjectWith(typ, topState)
}

// ObjectWith is an object of type t with the given attributes set and every
// other attribute null.
func ObjectWith(t tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(t.AttributeTypes))
	for name, at := range t.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range set {
		vals[name] = v
	}
	return tftypes.NewValue(t, vals)
}
