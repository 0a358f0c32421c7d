package aclpolicy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl"
	"github.com/hashicorp/hcl/hcl/ast"
)

// berth checks ACL policy rules itself, against Nomad's documented policy
// language, instead of linking Nomad's parser (BUSL-licensed since 1.7):
// the rules are HCL 1 or JSON, decoded the way Nomad's servers decode them
// (hashicorp/hcl v1, which ignores keys it does not know), then checked
// block by block. TestCheckRules_agreesWithNomad registers every case of
// its table on a real agent, so a disagreement with Nomad fails the suite.

// The levels a `policy = "..."` may take. Nomad checks namespace, node
// pool, host volume, agent, node, operator and quota policies against the
// same list; plugin has its own.
var (
	policyLevels       = []string{"deny", "read", "write", "scale"}
	pluginPolicyLevels = []string{"deny", "read", "list", "write"}
)

// The capabilities each labeled block accepts (Nomad 1.10's list; the
// Enterprise-only sentinel-override and submit-recommendation are accepted
// by open-source servers too).
var (
	namespaceCapabilities = []string{
		"deny", "list-jobs", "parse-job", "read-job", "submit-job", "dispatch-job", "read-logs", "read-fs",
		"alloc-exec", "alloc-node-exec", "alloc-lifecycle",
		"csi-register-plugin", "csi-write-volume", "csi-read-volume", "csi-list-volume", "csi-mount-volume",
		"list-scaling-policies", "read-scaling-policy", "read-job-scaling", "scale-job",
		"host-volume-create", "host-volume-register", "host-volume-read", "host-volume-write",
		"sentinel-override", "submit-recommendation",
	}
	nodePoolCapabilities   = []string{"deny", "read", "write", "delete"}
	hostVolumeCapabilities = []string{"deny", "mount-readonly", "mount-readwrite"}
	variableCapabilities   = []string{"deny", "list", "read", "write", "destroy"}
)

// The names a labeled block may carry (`*` is a glob).
var (
	namespaceLabel  = regexp.MustCompile(`^[a-zA-Z0-9*-]{1,128}$`)
	nodePoolLabel   = regexp.MustCompile(`^[a-zA-Z0-9_*-]{1,128}$`)
	hostVolumeLabel = regexp.MustCompile(`^[a-zA-Z0-9*-]{1,128}$`)
)

// rulesDoc is the shape Nomad decodes policy rules into.
type rulesDoc struct {
	Namespaces  []*labeledRule `hcl:"namespace,expand"`
	NodePools   []*labeledRule `hcl:"node_pool,expand"`
	HostVolumes []*labeledRule `hcl:"host_volume,expand"`
	Agent       *levelRule     `hcl:"agent"`
	Node        *levelRule     `hcl:"node"`
	Operator    *levelRule     `hcl:"operator"`
	Quota       *levelRule     `hcl:"quota"`
	Plugin      *levelRule     `hcl:"plugin"`
}

type labeledRule struct {
	Name         string         `hcl:",key"`
	Policy       string         `hcl:"policy"`
	Capabilities []string       `hcl:"capabilities"`
	Variables    *variablesRule `hcl:"variables"`
}

type variablesRule struct {
	Paths []*variablePathRule `hcl:"path"`
}

type variablePathRule struct {
	Path         string   `hcl:",key"`
	Capabilities []string `hcl:"capabilities"`
}

type levelRule struct {
	Policy string `hcl:"policy"`
}

// CheckRules reports, in words, why Nomad would refuse rules as an ACL
// policy's rules, or nil when it would accept them.
func CheckRules(rules string) error {
	if rules == "" {
		return nil // Nomad stores an empty policy as it is
	}
	doc, err := decodeRules(rules)
	if err != nil {
		return err
	}
	if len(doc.Namespaces) == 0 && len(doc.NodePools) == 0 && len(doc.HostVolumes) == 0 &&
		doc.Agent == nil && doc.Node == nil && doc.Operator == nil && doc.Quota == nil && doc.Plugin == nil {
		return errors.New("the rules grant nothing: give at least one namespace, node_pool, host_volume, agent, node, " +
			"operator, quota or plugin block")
	}
	for _, ns := range doc.Namespaces {
		if err := checkLabeled("namespace", ns, namespaceLabel, namespaceCapabilities); err != nil {
			return err
		}
		if err := checkVariables(ns); err != nil {
			return err
		}
	}
	for _, np := range doc.NodePools {
		if err := checkLabeled("node_pool", np, nodePoolLabel, nodePoolCapabilities); err != nil {
			return err
		}
	}
	for _, hv := range doc.HostVolumes {
		if err := checkLabeled("host_volume", hv, hostVolumeLabel, hostVolumeCapabilities); err != nil {
			return err
		}
	}
	for _, b := range []struct {
		name   string
		rule   *levelRule
		levels []string
	}{
		{"agent", doc.Agent, policyLevels}, {"node", doc.Node, policyLevels}, {"operator", doc.Operator, policyLevels},
		{"quota", doc.Quota, policyLevels}, {"plugin", doc.Plugin, pluginPolicyLevels},
	} {
		if b.rule != nil && !slices.Contains(b.levels, b.rule.Policy) {
			return fmt.Errorf("%s: policy %s is not one of %s", b.name, quoted(b.rule.Policy), strings.Join(b.levels, ", "))
		}
	}
	return nil
}

// decodeRules decodes as Nomad does, then clears the labels HCL 1 invents
// for blocks written without one (it reuses the block's own name), so that
// `namespace { ... }` reads as a namespace with no name.
func decodeRules(rules string) (doc rulesDoc, err error) {
	defer func() {
		// hcl v1's decoder panics on some shapes of input; Nomad refuses
		// those rules, and so does berth.
		if r := recover(); r != nil {
			err = errors.New("the rules are not valid HCL or JSON for an ACL policy")
		}
	}()
	if err := hcl.Decode(&doc, rules); err != nil {
		return doc, fmt.Errorf("the rules do not parse: %s", hclMessage(err))
	}
	root, err := hcl.Parse(rules)
	if err != nil {
		return doc, fmt.Errorf("the rules do not parse: %s", hclMessage(err))
	}
	list, ok := root.Node.(*ast.ObjectList)
	if !ok {
		return doc, errors.New("the rules must be a set of blocks")
	}
	clearMissingLabels(list.Filter("namespace"), doc.Namespaces)
	clearMissingLabels(list.Filter("node_pool"), doc.NodePools)
	clearMissingLabels(list.Filter("host_volume"), doc.HostVolumes)
	for i, item := range list.Filter("namespace").Items {
		body, ok := item.Val.(*ast.ObjectType)
		if !ok || i >= len(doc.Namespaces) || doc.Namespaces[i].Variables == nil {
			continue
		}
		vars := body.List.Filter("variables")
		if len(vars.Items) == 0 {
			continue
		}
		varsBody, ok := vars.Items[0].Val.(*ast.ObjectType)
		if !ok {
			continue
		}
		paths := doc.Namespaces[i].Variables.Paths
		for j, p := range varsBody.List.Filter("path").Items {
			if len(p.Keys) == 0 && j < len(paths) {
				paths[j].Path = ""
			}
		}
	}
	return doc, nil
}

func clearMissingLabels(blocks *ast.ObjectList, rules []*labeledRule) {
	for i, item := range blocks.Items {
		if len(item.Keys) == 0 && i < len(rules) {
			rules[i].Name = ""
		}
	}
}

func checkLabeled(kind string, r *labeledRule, label *regexp.Regexp, capabilities []string) error {
	if !label.MatchString(r.Name) {
		if r.Name == "" {
			return fmt.Errorf("a %s block needs a name (%s \"name\" { ... }; \"*\" matches every one)", kind, kind)
		}
		return fmt.Errorf("%s %s: the name must be 1 to 128 of %s", kind, quoted(r.Name), labelChars(kind))
	}
	if r.Policy != "" && !slices.Contains(policyLevels, r.Policy) {
		return fmt.Errorf("%s %s: policy %s is not one of %s", kind, quoted(r.Name), quoted(r.Policy), strings.Join(policyLevels, ", "))
	}
	for _, c := range r.Capabilities {
		if !slices.Contains(capabilities, c) {
			return fmt.Errorf("%s %s: capability %s is not one of %s", kind, quoted(r.Name), quoted(c), strings.Join(capabilities, ", "))
		}
	}
	return nil
}

func checkVariables(ns *labeledRule) error {
	if ns.Variables == nil {
		return nil
	}
	if len(ns.Variables.Paths) == 0 {
		return fmt.Errorf("namespace %s: a variables block needs at least one path block (path \"prefix/*\" { capabilities = [...] })", quoted(ns.Name))
	}
	for _, p := range ns.Variables.Paths {
		switch {
		case p.Path == "":
			return fmt.Errorf("namespace %s: a variables path block needs a path (path \"prefix/*\" { ... })", quoted(ns.Name))
		case strings.HasPrefix(p.Path, "/"):
			return fmt.Errorf("namespace %s: variables path %s must not start with \"/\"", quoted(ns.Name), quoted(p.Path))
		}
		for _, c := range p.Capabilities {
			if !slices.Contains(variableCapabilities, c) {
				return fmt.Errorf("namespace %s: variables path %s: capability %s is not one of %s",
					quoted(ns.Name), quoted(p.Path), quoted(c), strings.Join(variableCapabilities, ", "))
			}
		}
	}
	return nil
}

func labelChars(kind string) string {
	if kind == "node_pool" {
		return "ASCII letters, digits, `-`, `_` and `*`"
	}
	return "ASCII letters, digits, `-` and `*`"
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

// hclMessage is hcl v1's error without the Go type names some of its
// messages carry.
func hclMessage(err error) string {
	msg := goTypeName.ReplaceAllString(err.Error(), "")
	return strings.ReplaceAll(msg, "not an object type for struct", "is not a block with a name")
}

// goTypeName matches the Go type hcl v1 adds to some messages, such as
// " (*ast.ListType)" or " (aclpolicy.labeledRule)".
var goTypeName = regexp.MustCompile(`\s*\(\*?[a-z]+\.[A-Za-z]+\)`)
