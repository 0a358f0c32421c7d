// Package bench measures how long Terraform takes to apply, plan (refresh)
// and destroy N identical Nomad jobs through berth_instance, through the
// other Nomad provider's nomad_job (the peer), and as terraform_data (the
// floor: Terraform's own cost), against one local Nomad agent. `make bench`
// runs it; see the README's performance section.
package bench

import (
	"fmt"
	"strings"
)

// The job every variant runs: a raw_exec sleep, 20 MHz / 16 MiB, one
// allocation, the same update block for berth and the peer.
const (
	jobCommand     = "/bin/sleep"
	jobArg         = "3600"
	jobCPU         = 20
	jobMemory      = 16
	jobGroup       = "app" // berth's group name (instance.GroupName)
	jobTask        = "main"
	minHealthyTime = "1s"
	healthyDL      = "5m"
	progressDL     = "10m"
)

// In growth mode every job carries a constraint no node meets, so it
// registers (Nomad keeps it pending, with a blocked evaluation) but never
// places: the bench then measures the providers and the agent's API, not
// the scheduler and the tasks. The attribute is a node meta key no bench
// agent sets; berth_instance writes the same constraint on the task group
// through placement.constraints that the jobspec variants write in their
// group, so berth and the peer send Nomad the same job.
const (
	neverAttribute = "${meta.berth_bench_never}"
	neverOperator  = "is_set"
)

// Provider names a provider a variant needs: its source address (for
// dev_overrides) and the binary name Terraform looks for.
type Provider struct {
	Source string // e.g. "berthhq/berth"
	Binary string // e.g. "terraform-provider-berth"
}

var (
	berthProvider = Provider{Source: "berthhq/berth", Binary: "terraform-provider-berth"}
	peerProvider  = Provider{Source: "hashicorp/nomad", Binary: "terraform-provider-nomad"}
)

// Variant is one row of the table.
type Variant struct {
	Key      string    // short name for -only and JSON
	Label    string    // row label
	Provider *Provider // nil for terraform_data
	Peer     string    // Key of the peer row its ratios are against ("" for none)
	Base     string    // for a base row (the -base binary), the berth row it is compared with
	Waits    bool      // waits for the jobs' allocations (not run in growth mode: they never place)
	config   func(n int, addr string, never bool) string
}

// Keys of the variants, in table order.
const (
	KeyFloor       = "floor"
	KeyBerthNoWait = "berth-nowait"
	KeyBerthWait   = "berth-wait"
	KeyPeerDetach  = "peer-detach"
	KeyPeerWait    = "peer-wait"
	KeyBaseNoWait  = "base-nowait" // berth-nowait with the -base binary
	KeyBaseWait    = "base-wait"   // berth-wait with the -base binary
	KeyJobNoWait   = "job-nowait"  // berth_job, the peer's jobspec
	KeyJobWait     = "job-wait"
	KeyBaseJob     = "base-job-nowait" // job-nowait with the -base binary
)

// Variants returns every variant in table order.
func Variants() []Variant {
	return []Variant{
		{Key: KeyFloor, Label: "terraform_data (floor)", config: floorConfig},
		{Key: KeyBerthNoWait, Label: "berth_instance, wait_for_healthy = false", Provider: &berthProvider, Peer: KeyPeerDetach,
			config: func(n int, addr string, never bool) string { return berthConfig(KeyBerthNoWait, n, addr, false, never) }},
		{Key: KeyBaseNoWait, Label: "berth_instance (base), wait_for_healthy = false", Provider: &berthProvider, Base: KeyBerthNoWait,
			config: func(n int, addr string, never bool) string { return berthConfig(KeyBaseNoWait, n, addr, false, never) }},
		{Key: KeyBerthWait, Label: "berth_instance, wait_for_healthy = true", Provider: &berthProvider, Peer: KeyPeerWait, Waits: true,
			config: func(n int, addr string, never bool) string { return berthConfig(KeyBerthWait, n, addr, true, never) }},
		{Key: KeyBaseWait, Label: "berth_instance (base), wait_for_healthy = true", Provider: &berthProvider, Base: KeyBerthWait, Waits: true,
			config: func(n int, addr string, never bool) string { return berthConfig(KeyBaseWait, n, addr, true, never) }},
		{Key: KeyJobNoWait, Label: "berth_job, wait_for_healthy = false", Provider: &berthProvider, Peer: KeyPeerDetach,
			config: func(n int, addr string, never bool) string { return jobConfig(KeyJobNoWait, n, addr, false, never) }},
		{Key: KeyBaseJob, Label: "berth_job (base), wait_for_healthy = false", Provider: &berthProvider, Base: KeyJobNoWait,
			config: func(n int, addr string, never bool) string { return jobConfig(KeyBaseJob, n, addr, false, never) }},
		{Key: KeyJobWait, Label: "berth_job, wait_for_healthy = true", Provider: &berthProvider, Peer: KeyPeerWait, Waits: true,
			config: func(n int, addr string, never bool) string { return jobConfig(KeyJobWait, n, addr, true, never) }},
		{Key: KeyPeerDetach, Label: "nomad_job, detach = true", Provider: &peerProvider,
			config: func(n int, addr string, never bool) string { return peerConfig(n, addr, true, never) }},
		{Key: KeyPeerWait, Label: "nomad_job, detach = false", Provider: &peerProvider, Waits: true,
			config: func(n int, addr string, never bool) string { return peerConfig(n, addr, false, never) }},
	}
}

// GrowthKeys are the keys of the variants growth mode runs (base rows
// aside), in table order.
func GrowthKeys() []string {
	var keys []string
	for _, v := range Variants() {
		if v.GrowthVariant() && v.Base == "" {
			keys = append(keys, v.Key)
		}
	}
	return keys
}

// Config returns the Terraform configuration of v for n resources talking
// to the Nomad at addr.
func (v Variant) Config(n int, addr string) string { return v.config(n, addr, false) }

// GrowthConfig is Config with every job held back by a constraint no node
// meets (growth mode): the jobs register and are compared, never placed.
func (v Variant) GrowthConfig(n int, addr string) string { return v.config(n, addr, true) }

// GrowthVariant reports whether v runs in growth mode: no variant that
// waits for allocations does, since none are ever placed.
func (v Variant) GrowthVariant() bool { return !v.Waits }

// jobName is the Nomad job ID prefix of a variant; resources append the
// count index.
func jobName(key string) string { return "bench-" + key + "-" }

func floorConfig(n int, _ string, _ bool) string {
	return changeVariable + fmt.Sprintf(`resource "terraform_data" "bench" {
  count = %d
  input = "%s${count.index}${count.index == 0 && var.%s ? "-changed" : ""}"
}
`, n, jobName(KeyFloor), changeVar)
}

func berthConfig(key string, n int, addr string, wait, never bool) string {
	placement := ""
	if never {
		placement = fmt.Sprintf(`
  placement = {
    constraints = [{
      attribute = %q
      operator  = %q
    }]
  }`, hclEscape(neverAttribute), neverOperator)
	}
	return changeVariable + fmt.Sprintf(`terraform {
  required_providers {
    berth = { source = %q }
  }
}

provider "berth" {
  address = %q
}

resource "berth_instance" "bench" {
  count            = %d
  name             = "%s${count.index}"
  replicas         = 1
  wait_for_healthy = %t
  services = {
    %s = {
      driver  = "raw_exec"
      command = %q
      args    = [%q]
      cpu     = %d
      memory  = %s
    }
  }
  update = {
    max_parallel      = 1
    min_healthy_time  = %q
    healthy_deadline  = %q
    progress_deadline = %q
    auto_revert       = false
    canary            = 0
  }%s
}
`, berthProvider.Source, addr, n, jobName(key), wait, jobTask, jobCommand, jobArg, jobCPU, memoryExpr,
		minHealthyTime, healthyDL, progressDL, placement)
}

// peerConfig is the same job as berthConfig, as a jobspec: berth sets the
// update block on the group with health_check = "task_states" (no checks),
// and a host-mode group network.
func peerConfig(n int, addr string, detach, never bool) string {
	key := KeyPeerWait
	if detach {
		key = KeyPeerDetach
	}
	return changeVariable + fmt.Sprintf(`terraform {
  required_providers {
    nomad = { source = %q }
  }
}

provider "nomad" {
  address = %q
}

resource "nomad_job" "bench" {
  count            = %d
  detach           = %t
  purge_on_destroy = true
  jobspec          = <<EOT
%s
EOT
}
`, peerProvider.Source, addr, n, detach, benchJobspec(key, never))
}

// jobConfig is the peer's jobspec as berth_job.
func jobConfig(key string, n int, addr string, wait, never bool) string {
	return changeVariable + fmt.Sprintf(`terraform {
  required_providers {
    berth = { source = %q }
  }
}

provider "berth" {
  address = %q
}

resource "berth_job" "bench" {
  count            = %d
  wait_for_healthy = %t
  jobspec          = <<EOT
%s
EOT
}
`, berthProvider.Source, addr, n, wait, benchJobspec(key, never))
}

// benchJobspec is the job every jobspec variant runs, named for key; with
// never, its group has the constraint no node meets. It sits in a heredoc
// of the configuration, where Terraform would interpolate "${".
func benchJobspec(key string, never bool) string {
	constraint := ""
	if never {
		constraint = fmt.Sprintf(`

    constraint {
      attribute = %q
      operator  = %q
    }`, hclEscape(neverAttribute), neverOperator)
	}
	return fmt.Sprintf(`job "%s${count.index}" {
  datacenters = ["*"]
  type        = "service"

  group %q {
    count = 1%s

    network {
      mode = "host"
    }

    update {
      max_parallel      = 1
      health_check      = "task_states"
      min_healthy_time  = %q
      healthy_deadline  = %q
      progress_deadline = %q
      auto_revert       = false
      canary            = 0
    }

    task %q {
      driver = "raw_exec"

      config {
        command = %q
        args    = [%q]
      }

      resources {
        cpu    = %d
        memory = ${%s}
      }
    }
  }
}`, jobName(key), jobGroup, constraint, minHealthyTime, healthyDL, progressDL, jobTask, jobCommand, jobArg, jobCPU, memoryExpr)
}

// changeVariable declares changeVar: false by default, and true in the
// Change phase, where it changes resource 0 of every configuration (its
// memory by 1 MiB, the floor's input).
var changeVariable = fmt.Sprintf(`variable %q {
  type    = bool
  default = false
}

`, changeVar)

// memoryExpr is the task memory of resource count.index: jobMemory, one
// more for resource 0 when changeVar is set.
var memoryExpr = fmt.Sprintf("count.index == 0 && var.%s ? %d : %d", changeVar, jobMemory+1, jobMemory)

// hclEscape escapes Terraform's template interpolation in s ("${" becomes
// "$${"), for a literal string in a configuration.
func hclEscape(s string) string { return strings.ReplaceAll(s, "${", "$${") }

// CLIConfig returns a Terraform CLI configuration that loads each provider
// from dirs[provider.Source] through dev_overrides, so nothing is installed
// or downloaded.
func CLIConfig(dirs map[string]string) string {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, p := range []Provider{berthProvider, peerProvider} {
		if d, ok := dirs[p.Source]; ok {
			fmt.Fprintf(&b, "    %q = %q\n", p.Source, d)
		}
	}
	b.WriteString("  }\n  direct {}\n}\n")
	return b.String()
}
