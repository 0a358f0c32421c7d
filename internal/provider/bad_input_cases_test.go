package provider_test

import (
	"fmt"
	"strings"
)

// The bad-input table of TestAccBadInput_rejectedAtPlan, by resource.

// badInstanceConfig is a berth_instance "t" named after the case with body
// added; one exec service "a" unless body declares services.
func badInstanceConfig(body string) string {
	if !strings.Contains(body, "services") {
		body += "\n  services = { a = { driver = \"exec\", command = \"/bin/sleep\" } }"
	}
	return "resource \"berth_instance\" \"t\" {\n  " + body + "\n}\n"
}

// atApply marks a case whose rule depends on the cluster: a warning at
// plan, the error at apply (badInput.atApply).
func atApply(b badInput) badInput {
	b.atApply = true
	return b
}

func named(body string) string { return "name = \"%[1]s\"\n  " + body }

const svcA = `driver = "exec", command = "/bin/sleep"`

func badInstanceInputs() []badInput {
	in := func(name, body, path, summary string) badInput {
		return badInput{name: "instance/" + name, config: badInstanceConfig(body), address: "berth_instance.t", path: path, summary: summary}
	}
	withA := func(attrs string) string {
		return named(fmt.Sprintf("services = { a = { %s, %s } }", svcA, attrs))
	}
	return []badInput{
		in("name with a space", `name = "%[1]s x"`, "name", "Invalid name"),
		in("name with a slash", `name = "%[1]s/x"`, "name", "Invalid name"),
		in("name with a newline", `name = "%[1]s\nx"`, "name", "Invalid name"),
		in("name too long", `name = "%[1]s`+strings.Repeat("x", 120)+`"`, "name", "Invalid name"),
		in("empty name", `name = ""`, "name", "Invalid name"),
		in("namespace with an underscore", named(`namespace = "team_a"`), "namespace", "Invalid namespace"),
		in("negative replicas", named(`replicas = -1`), "replicas", "Invalid Attribute Value"),
		in("zero cpu", withA(`cpu = 0`), `services["a"].cpu`, "Invalid Attribute Value"),
		in("memory_max below memory", withA(`memory = 256, memory_max = 128`), `services["a"].memory_max`, "Invalid memory_max"),
		in("unknown role", withA(`role = "daemon"`), `services["a"].role`, "Invalid Attribute Value Match"),
		in("unknown kill_signal", withA(`kill_signal = "SIGFOO"`), `services["a"].kill_signal`, "Invalid Attribute Value Match"),
		in("template escaping the allocation", withA(`templates = [{ data = "x", destination = "../../etc/x" }]`),
			`services["a"].templates[0].destination`, "Template destination escapes the allocation"),
		in("template on berth's secret file", withA(`templates = [{ data = "x", destination = "secrets/berth-secret.env" }]`),
			`services["a"].templates[0].destination`, "Reserved template destination"),
		in("script template without a script", withA(`templates = [{ data = "x", destination = "local/x", change_mode = "script" }]`),
			`services["a"].templates[0].change_script`, "Missing change_script"),
		in("artifact with a short checksum", withA(`artifacts = [{ source = "https://example.com/x", options = { checksum = "sha256:abc" } }]`),
			`services["a"].artifacts[0].options["checksum"]`, "Invalid artifact checksum"),
		atApply(in("unknown driver", named(`services = { a = { driver = "dockr", image = "nginx" } }`), `services["a"].driver`, "Unknown task driver")),
		in("empty driver", named(`services = { a = { driver = "", command = "/bin/sleep" } }`), `services["a"].driver`, "Missing driver"),
		in("port out of range", withA(`ports = { http = { to = 70000 } }`), `services["a"].ports["http"].to`, "Invalid Attribute Value"),
		in("duplicated port label", named(fmt.Sprintf(`services = {
    a = { %[1]s, ports = { http = {} } }
    b = { role = "sidecar", %[1]s, ports = { http = {} } }
  }`, svcA)), `services["b"].ports["http"]`, "Duplicate port label"),
		in("duplicated static port", withA(`ports = { http = { static = 28080 }, admin = { static = 28080 } }`),
			`services["a"].ports["http"].static`, "Duplicate static port"),
		in("check on an undeclared port", withA(`check = { type = "tcp", port = "nope" }`), `services["a"].check.port`, "Unknown check port"),
		in("http check without a path", withA(`ports = { http = {} }, check = { type = "http", port = "http" }`),
			`services["a"].check.path`, "Missing check path"),
		in("check interval too short", withA(`ports = { http = {} }, check = { type = "tcp", port = "http", interval = "500ms" }`),
			`services["a"].check.interval`, "Invalid check interval"),
		in("unparsable check timeout", withA(`ports = { http = {} }, check = { type = "tcp", port = "http", timeout = "soon" }`),
			`services["a"].check.timeout`, "Invalid Time Duration String Value"),
		in("unparsable duration", named(`update = { min_healthy_time = "ten seconds" }`), "update.min_healthy_time", "Invalid Time Duration String Value"),
		in("unparsable healthy_deadline", named(`update = { healthy_deadline = "junk" }`), "update.healthy_deadline", "Invalid Time Duration String Value"),
		in("min_healthy_time not below healthy_deadline", named(`update = { min_healthy_time = "5m", healthy_deadline = "1m", progress_deadline = "10m" }`),
			"update.min_healthy_time", "Invalid min_healthy_time"),
		in("negative canary", named(`update = { canary = -1 }`), "update.canary", "Invalid Attribute Value"),
		in("zero stagger", named(`update = { stagger = "0s" }`), "update.stagger", "Invalid stagger"),
		// Secrets (instance_resource_secrets.go, instance/secrets.go).
		in("secret_env_wo without its version", withA(`secret_env_wo = { TOKEN = "s3cret" }`),
			`services["a"].secret_env_wo_version`, "Missing secret_env_wo_version"),
		in("secret_env_wo_version without secrets", withA(`secret_env_wo_version = 1`), `services["a"].secret_env_wo`, "Missing secret_env_wo"),
		in("empty secret_env_wo", withA(`secret_env_wo = {}, secret_env_wo_version = 1`), `services["a"].secret_env_wo`, "No secrets"),
		in("secret name not an env name", withA(`secret_env_wo = { "1-TOKEN" = "s3cret" }, secret_env_wo_version = 1`),
			`services["a"].secret_env_wo["1-TOKEN"]`, "Invalid secret variable name"),
		in("secret also in env", withA(`env = { TOKEN = "a" }, secret_env_wo = { TOKEN = "s3cret" }, secret_env_wo_version = 1`),
			`services["a"].secret_env_wo["TOKEN"]`, "Secret variable also in env"),
		in("secrets over 64 KiB", withA(`secret_env_wo = { BIG = format("%070000d", 0) }, secret_env_wo_version = 1`),
			`services["a"].secret_env_wo`, "Secrets too large"),
		in("secrets of a name no Variable path takes", `name = "%[1]s.v1"
  services = { a = { `+svcA+`, secret_env_wo = { TOKEN = "s3cret" }, secret_env_wo_version = 1 } }`,
			`services["a"].secret_env_wo_version`, "Secrets cannot be stored for this service"),
		in("auto_promote without canaries", named(`update = { auto_promote = true }`), "update.auto_promote", "auto_promote without canaries"),
		in("unknown health_check", named(`update = { health_check = "always" }`), "update.health_check", "Invalid Attribute Value Match"),
		in("empty services map", named(`services = {}`), "services", "Invalid Attribute Value"),
		in("empty datacenters", named(`datacenters = []`), "datacenters", "Invalid Attribute Value"),
		in("mount of an undeclared volume", withA(`mounts = [{ volume = "nope", destination = "/data" }]`),
			`services["a"].mounts[0].volume`, "Unknown volume"),
		in("raw_exec cannot mount", named(`volumes = { data = { volume = "x" } }
  services = { a = { driver = "raw_exec", command = "/bin/sleep", mounts = [{ volume = "data", destination = "/data" }] } }`),
			`services["a"].mounts`, "Driver cannot mount volumes"),
		in("relative mount destination", named(`volumes = { data = { volume = "x" } }
  services = { a = { `+svcA+`, mounts = [{ volume = "data", destination = "data" }] } }`),
			`services["a"].mounts[0].destination`, "Invalid mount destination"),
		in("reader-only claim not read-only", named(`volumes = { data = { volume = "x", access_mode = "single-node-reader-only" } }`),
			`volumes["data"].access_mode`, "Access mode needs read_only"),
		in("unknown access mode", named(`volumes = { data = { volume = "x", access_mode = "any-node-writer" } }`),
			`volumes["data"].access_mode`, "Invalid Attribute Value Match"),
		in("CSI access mode on a host volume", named(`volumes = { data = { volume = "x", access_mode = "multi-node-multi-writer" } }`),
			`volumes["data"].access_mode`, "Access mode of CSI volumes only"),
		in("unknown volume type", named(`volumes = { data = { type = "nfs", volume = "x" } }`),
			`volumes["data"].type`, "Invalid Attribute Value Match"),
		in("CSI single-node volume shared by replicas", named(`replicas = 2
  volumes = { data = { type = "csi", volume = "x" } }`),
			`volumes["data"].access_mode`, "Access mode allows one allocation"),
		in("host volume name with a slash", named(`volumes = { data = { volume = "a/b" } }`), `volumes["data"].volume`, "Invalid name"),
		in("reserved meta key", named(`meta = { "berth.kind" = "x" }`), `meta["berth.kind"]`, "Reserved meta key"),
		in("config repeats image", withA(`config = jsonencode({ image = "x" })`), `services["a"].config`, "Reserved config key"),
		in("config not an object", withA(`config = "[1]"`), `services["a"].config`, "Invalid driver config"),
		in("config not JSON", withA(`config = "{nope"`), `services["a"].config`, "Invalid JSON String Value"),
		in("service name with a slash", named(`services = { "a/b" = { `+svcA+` } }`), `services["a/b"]`, "Invalid service name"),
		in("unknown network mode", named(`network_mode = "cni/x"`), "network_mode", "Invalid Attribute Value Match"),
		in("negative kill_timeout", withA(`policies = { kill_timeout = "-1s" }`), `services["a"].policies.kill_timeout`, "Invalid kill_timeout"),
		in("negative shutdown_delay", withA(`policies = { shutdown_delay = "-1s" }`), `services["a"].policies.shutdown_delay`, "Invalid shutdown_delay"),
		in("kill_timeout beyond progress_deadline", withA(`policies = { kill_timeout = "1h" }`), `services["a"].policies.kill_timeout`, "kill_timeout longer than progress_deadline"),
		in("unknown restart mode", named(`policies = { restart = { mode = "retry" } }`), "policies.restart.mode", "Invalid Attribute Value Match"),
		in("restart delay mode without attempts", named(`policies = { restart = { attempts = 0, mode = "delay" } }`), "policies.restart.mode", "Invalid restart mode"),
		in("unparsable restart interval", named(`policies = { restart = { interval = "soon" } }`), "policies.restart.interval", "Invalid Time Duration String Value"),
		in("restart interval too short", named(`policies = { restart = { interval = "1s" } }`), "policies.restart.interval", "Invalid restart interval"),
		in("restart attempts beyond the interval", named(`policies = { restart = { attempts = 10, interval = "1m" } }`), "policies.restart.interval",
			"Restart attempts do not fit in the interval"),
		in("reschedule attempts while unlimited", named(`policies = { reschedule = { attempts = 3 } }`), "policies.reschedule.attempts", "Ambiguous reschedule policy"),
		in("unknown delay_function", named(`policies = { reschedule = { delay_function = "linear" } }`), "policies.reschedule.delay_function", "Invalid Attribute Value Match"),
		in("reschedule delay too short", named(`policies = { reschedule = { delay = "1s" } }`), "policies.reschedule.delay", "Invalid reschedule delay"),
		in("unknown migrate health_check", named(`policies = { migrate = { health_check = "manual" } }`), "policies.migrate.health_check", "Invalid Attribute Value Match"),
		in("migrate min_healthy_time beyond deadline", named(`policies = { migrate = { min_healthy_time = "10m" } }`), "policies.migrate.min_healthy_time",
			"Invalid migrate min_healthy_time"),
		in("ephemeral disk too small", named(`policies = { ephemeral_disk = { size = 5 } }`), "policies.ephemeral_disk.size", "Invalid Attribute Value"),
		in("logs beyond the ephemeral disk", withA(`policies = { logs = { max_files = 40 } }`), `services["a"].policies.logs`, "Logs do not fit on the ephemeral disk"),
		in("zero log files", withA(`policies = { logs = { max_files = 0 } }`), `services["a"].policies.logs.max_files`, "Invalid Attribute Value"),
		in("priority zero", named(`policies = { priority = 0 }`), "policies.priority", "Invalid Attribute Value"),
		in("reserved task meta key", withA(`policies = { meta = { "berth.ports" = "x" } }`), `services["a"].policies.meta["berth.ports"]`, "Reserved meta key"),
		in("check on a poststop service", named(fmt.Sprintf(`services = {
    a = { %[1]s }
    b = { role = "poststop", %[1]s, ports = { http = {} }, check = { type = "tcp", port = "http" } }
  }`, svcA)), `services["b"].check`, "Check on poststop service"),
		in("malformed node_reservation", named(`node_reservation = "nope"`), "node_reservation", "Invalid node reservation ID"),
		atApply(in("node_reservation that does not exist", named(`node_reservation = "%[2]s/%[1]s-none"`), "node_reservation", "Node reservation not found")),
		in("unknown job type", named(`type = "sysbatch"`), "type", "Invalid Attribute Value Match"),
		in("replicas on a system job", named(`type = "system"
  replicas = 2`), "replicas", "replicas on a system job"),
		in("canary on a system job", named(`type = "system"
  update = { canary = 1 }`), "update.canary", "Canaries on a system job"),
		in("node_reservation on a system job", named(`type = "system"
  node_reservation = "%[2]s/r"`), "node_reservation", "node_reservation on a system job"),
		in("update on a batch job", named(`type = "batch"
  update = { max_parallel = 1 }`), "update", "update on a batch job"),
		in("unknown constraint operator", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "~", value = "a" }] }`),
			"placement.constraints[{…}].operator", "Invalid Attribute Value Match"),
		in("operator alias", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "==", value = "a" }] }`),
			"placement.constraints[{…}].operator", "Invalid Attribute Value Match"),
		in("distinct_hosts value not a boolean", named(`placement = { constraints = [{ operator = "distinct_hosts", value = "yes" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("distinct_property value not an integer", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "distinct_property", value = "two" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("distinct_property value 0", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "distinct_property", value = "0" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("constraint without attribute", named(`placement = { constraints = [{ value = "a" }] }`), "placement.constraints[{…}].attribute", "Invalid constraint"),
		in("semver constraint that does not parse", named(`placement = { constraints = [{ attribute = "$${attr.nomad.version}", operator = "semver", value = "~> 1.2.0" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("regexp that does not compile", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "regexp", value = "r(" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("is_set with a value", named(`placement = { constraints = [{ attribute = "$${meta.rack}", operator = "is_set", value = "a" }] }`),
			"placement.constraints[{…}].value", "Invalid constraint"),
		in("constraint operator in an affinity", named(`placement = { affinities = [{ attribute = "$${meta.rack}", operator = "distinct_property", value = "1" }] }`),
			"placement.affinities[{…}].operator", "Invalid Attribute Value Match"),
		in("affinity weight 0", named(`placement = { affinities = [{ attribute = "$${meta.rack}", value = "a", weight = 0 }] }`),
			"placement.affinities[{…}].weight", "Invalid Attribute Value Match"),
		in("affinity weight above 100", named(`placement = { affinities = [{ attribute = "$${meta.rack}", value = "a", weight = 101 }] }`),
			"placement.affinities[{…}].weight", "Invalid Attribute Value"),
		in("spread weight 0", named(`placement = { spreads = [{ attribute = "$${meta.rack}", weight = 0 }] }`), "placement.spreads[{…}].weight", "Invalid Attribute Value"),
		in("spread targets above 100 percent", named(`placement = { spreads = [{ attribute = "$${meta.rack}", targets = [{ value = "a", percent = 60 }, { value = "b", percent = 50 }] }] }`),
			"placement.spreads[{…}].targets", "Invalid spread targets"),
		in("spread target value twice", named(`placement = { spreads = [{ attribute = "$${meta.rack}", targets = [{ value = "a", percent = 10 }, { value = "a", percent = 20 }] }] }`),
			"placement.spreads[{…}].targets", "Duplicate spread target"),
		in("group name with a slash", named(`group = "a/b"`), "group", "Invalid group name"),
		in("spread on a system job", named(`type = "system"
  placement = { spreads = [{ attribute = "$${node.datacenter}" }] }`), "placement.spreads", "Spreads on a system job"),
		in("affinity on a system job", named(`type = "system"
  placement = { affinities = [{ attribute = "$${meta.rack}", value = "a" }] }`), "placement.affinities", "Affinities on a system job"),
	}
}

func badVolumeInputs() []badInput {
	in := func(name, body, path, summary string) badInput {
		return badInput{name: "volume/" + name, config: "resource \"berth_volume\" \"t\" {\n  " + body + "\n}\n",
			address: "berth_volume.t", path: path, summary: summary}
	}
	return []badInput{
		in("name with a space", `name = "%[1]s x"`, "name", "Invalid name"),
		in("name starting with a dot", `name = ".%[1]s"`, "name", "Invalid name"),
		in("unparsable size", named(`capacity_min = "1GiB"
  capacity_max = "10 parsecs"`), "capacity_max", "Invalid size"),
		in("capacity_max below capacity_min", named(`capacity_min = "2GiB"
  capacity_max = "1GiB"`), "capacity_max", "capacity_max below capacity_min"),
		in("capacity_min without capacity_max", named(`capacity_min = "1GiB"`), "capacity_max", "capacity_min needs capacity_max"),
		in("node_id not an ID", named(`node_id = "node-1"`), "node_id", "Invalid node ID"),
		in("node_id only a prefix", named(`node_id = "abcd1234"`), "node_id", "Invalid node ID"),
		in("node_id with node_reservation", named(`node_id = "%[2]s"
  node_reservation = "%[2]s/r"`), "node_reservation", "Invalid Attribute Combination"),
		in("unknown mkdir parameter", named(`parameters = { size = "1G" }`), `parameters["size"]`, "Unknown mkdir parameter"),
		in("unknown access mode", named(`access_mode = "multi-node"`), "access_mode", "Invalid Attribute Value Match"),
		in("unknown constraint operator", named(`constraints = [{ attribute = "$${attr.kernel.name}", operator = "~", value = "linux" }]`),
			"constraints[0].operator", "Invalid Attribute Value Match"),
		in("namespace with a space", named(`namespace = "a b"`), "namespace", "Invalid namespace"),
		atApply(in("node_reservation that does not exist", named(`node_reservation = "%[2]s/%[1]s-none"
  capacity_max = "10MiB"`), "node_reservation", "Node reservation not found")),
	}
}

func badReservationInputs() []badInput {
	lease := func(name, body, path, summary string) badInput {
		if !strings.Contains(body, "workload") {
			body += "\n  workload = { driver = \"exec\", command = \"/bin/sleep\" }"
		}
		if !strings.Contains(body, "duration") {
			body += "\n  duration = \"1h\""
		}
		return badInput{name: "lease/" + name, config: "resource \"berth_reservation\" \"t\" {\n  " + body + "\n}\n",
			address: "berth_reservation.t", path: path, summary: summary}
	}
	hold := func(name, body, path, summary string) badInput {
		return badInput{name: "node_reservation/" + name, config: "resource \"berth_node_reservation\" \"t\" {\n  " + body + "\n}\n",
			address: "berth_node_reservation.t", path: path, summary: summary}
	}
	return []badInput{
		lease("name with a slash", `name = "%[1]s/x"`, "name", "Invalid name"),
		lease("negative duration", named(`duration = "-1h"`), "duration", "Invalid duration"),
		lease("unparsable duration", named(`duration = "forever"`), "duration", "Invalid Time Duration String Value"),
		atApply(lease("unknown driver", named(`workload = { driver = "nope", command = "/bin/sleep" }`), "workload.driver", "Unknown task driver")),
		lease("zero cpu", named(`workload = { driver = "exec", command = "/bin/sleep", cpu = 0 }`), "workload.cpu", "Invalid Attribute Value"),
		lease("uppercase node_id", named(`node_id = upper("%[2]s")`), "node_id", "Invalid node ID"),
		lease("node_id with node_reservation", named(`node_id = "%[2]s"
  node_reservation = "%[2]s/r"`), "node_reservation", "Invalid Attribute Combination"),
		atApply(lease("node_reservation that does not exist", named(`node_reservation = "%[2]s/%[1]s-none"`), "node_reservation", "Node reservation not found")),
		hold("name with a space", `name = "%[1]s x"
  cpu = 100`, "name", "Invalid name"),
		hold("nothing reserved", named(`node_id = "%[2]s"`), "cpu", "Empty reservation"),
		hold("negative memory", named(`memory = -1`), "memory", "Invalid Attribute Value"),
		hold("node_id not an ID", named(`node_id = "../../v1/jobs"
  cpu = 100`), "node_id", "Invalid node ID"),
		atApply(hold("node that does not exist", named(`node_id = "00000000-0000-4000-8000-000000000000"
  cpu = 100`), "node_id", "Node not found")),
		hold("placement with node_id", named(`node_id = "%[2]s"
  cpu = 100
  placement = { node_pool = "default" }`), "placement", "Invalid Attribute Combination"),
		hold("unknown placement strategy", named(`cpu = 100
  placement = { strategy = "random" }`), "placement.strategy", "Invalid Attribute Value Match"),
	}
}

func badDataSourceInputs() []badInput {
	data := func(name, typ, body, path, summary string) badInput {
		return badInput{name: "data_" + typ + "/" + name, config: "data \"berth_" + typ + "\" \"t\" {\n  " + body + "\n}\n",
			address: "data.berth_" + typ + ".t", path: path, summary: summary}
	}
	return []badInput{
		data("id not hex", "node", `id = "node-%[1]s"`, "id", "Invalid node ID"),
		// A final "F": the node's own prefix may be all digits, which upper()
		// leaves a valid ID (a flake seen once in about 40 runs).
		data("uppercase id", "node", `id = "${upper(substr("%[2]s", 0, 7))}F"`, "id", "Invalid node ID"),
		data("neither id nor name", "node", ``, "", "Missing Attribute Configuration"),
		data("name with a slash", "instance", `name = "%[1]s/versions"`, "name", "Invalid name"),
		data("namespace with a space", "instance", `name = "%[1]s"
  namespace = "a b"`, "namespace", "Invalid namespace"),
		data("host volume id not a UUID", "volume", `id = "%[1]s"
  type = "host"`, "id", "Invalid volume ID"),
		data("unknown status", "nodes", `status = "up"`, "status", "Invalid Attribute Value Match"),
		data("negative min_free", "nodes", `min_free = { cpu = -1 }`, "min_free.cpu", "Invalid Attribute Value"),
	}
}

// badRegistrationInputs are the bad-input rows of registrations.
func badRegistrationInputs() []badInput {
	in := func(name, regs, path, summary string) badInput {
		body := named(fmt.Sprintf(`services = { a = { %s, ports = { http = {} }, registrations = [%s] } }`, svcA, regs))
		return badInput{name: "instance/registration " + name, config: badInstanceConfig(body), address: "berth_instance.t",
			path: `services["a"].registrations` + path, summary: summary}
	}
	return []badInput{
		in("grpc check with provider nomad", `{ name = "web", port = "http", checks = [{ type = "grpc" }] }`,
			"[0].checks[0].type", "Check type not supported by Nomad"),
		in("ignore_warnings with provider nomad", `{ name = "web", port = "http", checks = [{ type = "tcp", check_restart = { ignore_warnings = true } }] }`,
			"[0].checks[0].check_restart.ignore_warnings", "ignore_warnings not supported by Nomad"),
		in("address_mode driver with provider nomad", `{ name = "web", port = "http", address_mode = "driver" }`,
			"[0].address_mode", "address_mode not supported by Nomad"),
		in("port not declared", `{ name = "web", port = "https" }`, "[0].port", "Unknown port"),
		in("duplicate registrations", `{ name = "web", port = "http" }, { name = "web", port = "http" }`, "[1].name", "Duplicate registration"),
		in("two unnamed checks", `{ name = "web", port = "http", checks = [{ type = "tcp" }, { type = "tcp" }] }`,
			"[0].checks[1].name", "Duplicate check name"),
		in("invalid service name", `{ name = "web_1", port = "http" }`, "[0].name", "Invalid service name"),
		in("check interval too short", `{ name = "web", port = "http", checks = [{ type = "tcp", interval = "100ms" }] }`,
			"[0].checks[0].interval", "Invalid check interval"),
		in("unknown provider", `{ name = "web", provider = "eureka" }`, "[0].provider", "Invalid Attribute Value Match"),
		in("mixed providers", `{ name = "web", provider = "consul" }, { name = "web2" }`, "[1].provider", "Mixed service providers"),
		{name: "instance/registration with check", config: badInstanceConfig(named(fmt.Sprintf(
			`services = { a = { %s, ports = { http = {} }, check = { type = "tcp", port = "http" }, registrations = [{ name = "web" }] } }`, svcA))),
			address: "berth_instance.t", path: `services["a"].registrations`, summary: "Invalid Attribute Combination"},
	}
}

// badTokenInputs are the bad-input rows of ACL tokens: a TTL of 0 is no
// expiry to Nomad, so a short-lived token would live for ever; a secret
// under nomad/jobs is readable by every job of the namespace. And of node
// introduction tokens: a negative TTL is no expiry to Nomad, and no node
// can register in the pool all.
func badTokenInputs() []badInput {
	return []badInput{
		{name: "ephemeral_acl_token/zero ttl", config: "ephemeral \"berth_acl_token\" \"t\" {\n  name = \"%[1]s\"\n  type = \"management\"\n  ttl  = \"0s\"\n}\n",
			address: "ephemeral.berth_acl_token.t", path: "ttl", summary: "Token TTL too short"},
		{name: "ephemeral_acl_token/ttl under a minute", config: "ephemeral \"berth_acl_token\" \"t\" {\n  name = \"%[1]s\"\n  type = \"management\"\n  ttl  = \"30s\"\n}\n",
			address: "ephemeral.berth_acl_token.t", path: "ttl", summary: "Token TTL too short"},
		{name: "acl_token/zero expiration_ttl", config: "resource \"berth_acl_token\" \"t\" {\n  name = \"%[1]s\"\n  type = \"management\"\n  expiration_ttl = \"0s\"\n}\n",
			address: "berth_acl_token.t", path: "expiration_ttl", summary: "Token TTL too short"},
		{name: "acl_token/secret under nomad/jobs", address: "berth_acl_token.t", path: "secret_variable_path",
			summary: "Invalid secret Variable path", config: `resource "berth_acl_token" "t" {
  name                 = "%[1]s"
  type                 = "management"
  secret_variable_path = "nomad/jobs/ci"
}
`},
		{name: "ephemeral_node_intro_token/negative ttl", config: "ephemeral \"berth_node_intro_token\" \"t\" {\n  node_name = \"%[1]s\"\n  ttl = \"-1h\"\n}\n",
			address: "ephemeral.berth_node_intro_token.t", path: "ttl", summary: "Token TTL too short"},
		{name: "ephemeral_node_intro_token/pool all", config: "ephemeral \"berth_node_intro_token\" \"t\" {\n  node_name = \"%[1]s\"\n  node_pool = \"all\"\n}\n",
			address: "ephemeral.berth_node_intro_token.t", path: "node_pool", summary: "Invalid node pool"},
	}
}
