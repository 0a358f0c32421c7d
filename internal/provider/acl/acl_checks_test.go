package acl

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// The family's checks read an object from Nomad's API and compare it with
// what state holds; these find the object and read it, so that each check
// is its comparison.

// idIn finds the ID of the object a check reads: the attribute attr of
// addr in state.
func idIn(addr, attr string) func(*terraform.State) (string, error) {
	return func(s *terraform.State) (string, error) {
		attrs, err := dataAttrs(s, addr)
		return attrs[attr], err
	}
}

// known is an ID known before the step runs.
func known(id string) func(*terraform.State) (string, error) {
	return func(*terraform.State) (string, error) { return id, nil }
}

// nomadRead is a read of Nomad's API by ID or name (Info, Get).
type nomadRead[O any] func(id string, q *api.QueryOptions) (*O, *api.QueryMeta, error)

// checkInNomad reads with read the object (what: "ACL role") whose ID
// find finds, and requires check to pass on it.
func checkInNomad[O any](what string, find func(*terraform.State) (string, error), read nomadRead[O],
	check func(s *terraform.State, id string, o *O) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := find(s)
		if err != nil {
			return err
		}
		o, _, err := read(id, nil)
		if err != nil {
			return fmt.Errorf("reading %s %s from Nomad: %v", what, id, err)
		}
		return check(s, id, o)
	}
}

// checkDataInNomad is checkInNomad for the data source at addr: check
// compares its attributes with the object.
func checkDataInNomad[O any](addr, what string, find func(*terraform.State) (string, error), read nomadRead[O],
	check func(attrs map[string]string, o *O) error) resource.TestCheckFunc {
	return checkInNomad(what, find, read, func(s *terraform.State, _ string, o *O) error {
		attrs, err := dataAttrs(s, addr)
		if err != nil {
			return err
		}
		return check(attrs, o)
	})
}

// checkGoneFromNomad requires read of name (what: "ACL role") to answer
// that Nomad has no such object.
func checkGoneFromNomad[O any](what, name string, read nomadRead[O]) resource.TestCheckFunc {
	return func(*terraform.State) error {
		o, _, err := read(name, nil)
		if err == nil {
			return fmt.Errorf("%s %q is still in Nomad: %+v", what, name, o)
		}
		if !acctest.IsNotFound(err) {
			return fmt.Errorf("reading %s %q: %v", what, name, err)
		}
		return nil
	}
}

// queryByNamePrefix is the list block with which the query tests find
// the objects of type typ (berth_acl_role) whose name starts with prefix,
// each with its resource.
func queryByNamePrefix(typ, prefix string) string {
	return fmt.Sprintf(`list %q "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, typ, prefix)
}
