// Package aclpolicytest holds the table of ACL policy rule texts that
// berth's checker (aclpolicy.CheckRules) and a real Nomad must judge alike:
// the unit test checks berth's words, the acceptance test registers each
// text on an agent and compares Nomad's answer with berth's.
package aclpolicytest

// Case is one rule text; Refusal, when set, is a phrase berth's message
// must contain (the text is then refused by Nomad too).
type Case struct {
	Name, Rules, Refusal string
}

// Cases covers every block and capability of the policy language, in HCL
// and JSON, accepted and refused.
var Cases = []Case{
	{"namespace read", `namespace "default" { policy = "read" }`, ""},
	{"namespace write", `namespace "default" { policy = "write" }`, ""},
	{"namespace scale", `namespace "default" { policy = "scale" }`, ""},
	{"namespace deny", `namespace "default" { policy = "deny" }`, ""},
	{"namespace glob", `namespace "*" { policy = "read" }`, ""},
	{"namespace prefix glob", `namespace "team-*" { policy = "read" }`, ""},
	{"namespace empty body", `namespace "default" {}`, ""},
	{"namespace every capability", `namespace "default" { capabilities = ["deny", "list-jobs", "parse-job", "read-job",
  "submit-job", "dispatch-job", "read-logs", "read-fs", "alloc-exec", "alloc-node-exec", "alloc-lifecycle",
  "csi-register-plugin", "csi-write-volume", "csi-read-volume", "csi-list-volume", "csi-mount-volume",
  "list-scaling-policies", "read-scaling-policy", "read-job-scaling", "scale-job", "host-volume-create",
  "host-volume-register", "host-volume-read", "host-volume-write", "sentinel-override", "submit-recommendation"] }`, ""},
	{"namespace policy and capabilities", `namespace "default" {
  policy       = "read"
  capabilities = ["submit-job"]
}`, ""},
	{"namespace bad policy", `namespace "x" { policy = "sometimes" }`, `namespace "x": policy "sometimes" is not one of deny, read, write, scale`},
	{"namespace list policy", `namespace "x" { policy = "list" }`, `policy "list" is not one of`},
	{"namespace bad capability", `namespace "default" { capabilities = ["fly"] }`, `capability "fly" is not one of`},
	{"namespace node-pool capability", `namespace "default" { capabilities = ["delete"] }`, `capability "delete"`},
	{"namespace no label", `namespace { policy = "read" }`, "a namespace block needs a name"},
	{"namespace bad label", `namespace "a.b" { policy = "read" }`, `namespace "a.b": the name must be`},
	{"namespace underscore label", `namespace "a_b" { policy = "read" }`, `namespace "a_b": the name must be`},
	{"variables", `namespace "default" {
  variables {
    path "app/*" { capabilities = ["read", "list"] }
    path "*" { capabilities = ["write", "destroy", "deny"] }
  }
}`, ""},
	{"variables no path", `namespace "default" {
  variables {}
}`, "a variables block needs at least one path block"},
	{"variables unlabelled path", `namespace "default" {
  variables {
    path { capabilities = ["read"] }
  }
}`, "variables.path[0]: is not a block with a name"},
	{"variables leading slash", `namespace "default" {
  variables {
    path "/app" { capabilities = ["read"] }
  }
}`, `variables path "/app" must not start with`},
	{"variables bad capability", `namespace "default" {
  variables {
    path "app" { capabilities = ["submit-job"] }
  }
}`, `variables path "app": capability "submit-job" is not one of`},
	{"node_pool read", `node_pool "default" { policy = "read" }`, ""},
	{"node_pool write glob", `node_pool "*" { policy = "write" }`, ""},
	{"node_pool underscore", `node_pool "gpu_a" { policy = "read" }`, ""},
	{"node_pool capabilities", `node_pool "default" { capabilities = ["read", "write", "delete", "deny"] }`, ""},
	{"node_pool bad capability", `node_pool "default" { capabilities = ["list-jobs"] }`, `node_pool "default": capability "list-jobs"`},
	{"node_pool bad policy", `node_pool "default" { policy = "all" }`, `node_pool "default": policy "all"`},
	{"node_pool no label", `node_pool { policy = "read" }`, "a node_pool block needs a name"},
	{"host_volume write", `host_volume "data" { policy = "write" }`, ""},
	{"host_volume capabilities", `host_volume "data-*" { capabilities = ["mount-readonly", "mount-readwrite", "deny"] }`, ""},
	{"host_volume bad capability", `host_volume "data" { capabilities = ["mount"] }`, `host_volume "data": capability "mount"`},
	{"host_volume bad label", `host_volume "data_1" { policy = "read" }`, `host_volume "data_1": the name must be`},
	{"agent read", `agent { policy = "read" }`, ""},
	{"agent bad", `agent { policy = "admin" }`, `agent: policy "admin" is not one of`},
	{"agent empty", `agent {}`, `agent: policy "" is not one of`},
	{"node write", `node { policy = "write" }`, ""},
	{"node bad", `node { policy = "list" }`, `node: policy "list"`},
	{"operator read", `operator { policy = "read" }`, ""},
	{"operator bad", `operator { policy = "root" }`, `operator: policy "root"`},
	{"quota read", `quota { policy = "read" }`, ""},
	{"quota bad", `quota { policy = "own" }`, `quota: policy "own"`},
	{"plugin list", `plugin { policy = "list" }`, ""},
	{"plugin read", `plugin { policy = "read" }`, ""},
	{"plugin scale", `plugin { policy = "scale" }`, `plugin: policy "scale" is not one of deny, read, list, write`},
	{"unknown block only", `nothing = "here"`, "the rules grant nothing"},
	{"unknown block beside a known one", `namespace "default" { policy = "read" }
keyring { policy = "write" }`, ""},
	{"syntax error", `namespace "default" {`, "the rules do not parse"},
	{"every block", `namespace "default" { policy = "write" }
node_pool "default" { policy = "read" }
host_volume "*" { policy = "read" }
agent { policy = "read" }
node { policy = "read" }
operator { policy = "read" }
quota { policy = "read" }
plugin { policy = "read" }`, ""},
	{"json", `{"namespace": {"default": {"policy": "read"}}, "node": {"policy": "read"}}`, ""},
	{"json bad policy", `{"namespace": {"default": {"policy": "often"}}}`, `namespace "default": policy "often"`},
}
