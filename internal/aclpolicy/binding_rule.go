package aclpolicy

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-bexpr"
)

// Binding rule bind types: what a login that matches the rule is granted.
const (
	BindRole       = "role"
	BindPolicy     = "policy"
	BindManagement = "management"
)

// BindTypes lists the bind types Nomad accepts.
func BindTypes() []string { return []string{BindRole, BindPolicy, BindManagement} }

// BindingRule is an ACL binding rule as berth manages it.
type BindingRule struct {
	// ID is Nomad's UUID for the rule.
	ID, Description, AuthMethod, Selector, BindType, BindName string
}

// MaxBindingRuleDescription is the longest description Nomad accepts.
const MaxBindingRuleDescription = 256

// CheckSelector runs the expression parser Nomad's servers run over a
// binding rule's selector (go-bexpr) and returns its message when it
// refuses the selector.
func CheckSelector(selector string) error {
	if selector == "" {
		return nil
	}
	_, err := bexpr.CreateEvaluator(selector)
	return err
}

// Check applies Nomad's rules for a rule's bind name (nomad/structs
// ACLBindingRule.Validate): role and policy rules name what they grant, a
// management rule names nothing.
func (b BindingRule) Check() error {
	switch {
	case (b.BindType == BindRole || b.BindType == BindPolicy) && b.BindName == "":
		return fmt.Errorf("a %q binding rule needs bind_name: the name of the %s it grants", b.BindType, b.BindType)
	case b.BindType == BindManagement && b.BindName != "":
		return errors.New("a \"management\" binding rule grants a management token and names nothing: remove bind_name")
	}
	return nil
}
