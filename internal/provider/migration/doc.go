// Package migration holds the acceptance test of the guide "Moving from
// hashicorp/nomad": one configuration holding one resource of each type
// berth takes over, written by the other provider and moved to berth with
// `moved` blocks alone.
package migration
