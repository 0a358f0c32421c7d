// Package aclpolicy is berth's side of Nomad's ACL objects that say who may
// do what: policies (berth_acl_policy), roles (berth_acl_role), auth
// methods (berth_acl_auth_method) and binding rules
// (berth_acl_binding_rule). It holds the settings a user gives, Nomad's
// rules for them (its policy parser, its name and job_acl rules), and the
// mapping to and from Nomad's API types. It knows nothing of Terraform.
package aclpolicy

import (
	"errors"
	"fmt"
	"regexp"
)

// NameRule states Nomad's rule for the names of policies, roles and auth
// methods (nomad/structs ValidPolicyName, ValidACLRoleName,
// ValidACLAuthMethod).
const NameRule = "1 to 128 ASCII letters, digits and `-`"

var nameRe = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

// CheckName reports whether name follows NameRule.
func CheckName(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("%q is not a valid name: Nomad's ACL names are %s", name, NameRule)
	}
	return nil
}

// MaxDescription is the longest policy description Nomad accepts.
const MaxDescription = 256

// Policy is an ACL policy as berth manages it.
type Policy struct {
	Name        string
	Description string
	// Rules is the policy's HCL (or JSON) text, exactly as Nomad stores it.
	Rules string
	// JobACL attaches the policy to workloads; nil when it is attached to
	// none (only tokens and roles carry it).
	JobACL *JobACL
}

// JobACL is a policy's attachment to workloads (workload identity): every
// job in Namespace (JobID empty), one job, one of its groups, or one task.
type JobACL struct {
	Namespace, JobID, Group, Task string
}

// PolicyStub is a policy as Nomad lists it (without its rules).
type PolicyStub struct {
	Name, Description string
}

// Check applies Nomad's rules for a job_acl (nomad/structs
// ACLPolicy.Validate and `nomad acl policy apply`): a job needs its
// namespace, a group its job, a task its group. Namespace alone attaches
// the policy to every job in the namespace. Field names the attribute at
// fault ("namespace", "job_id", "group" or "task").
func (j JobACL) Check() (field string, err error) {
	switch {
	case j.Namespace == "":
		return "namespace", errors.New("a job_acl needs a namespace: Nomad attaches the policy to the workloads of one namespace")
	case j.Group != "" && j.JobID == "":
		return "group", errors.New("a group needs job_id (Nomad attaches a policy to a group of one job): set job_id to the group's job")
	case j.Task != "" && j.Group == "":
		return "task", errors.New("a task needs group (Nomad attaches a policy to a task of one group): set group to the task's group and job_id to its job")
	}
	return "", nil
}
