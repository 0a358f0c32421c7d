package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// DefaultNamespace is Nomad's built-in namespace: it always exists and
// Nomad refuses to delete it.
const DefaultNamespace = "default"

// Namespace is a Nomad namespace as berth manages it: every setting Nomad
// 1.10's namespace holds. Quota and the three cluster configurations are
// Nomad Enterprise settings; Nomad CE refuses a namespace that sets them.
type Namespace struct {
	Name        string
	Description string
	Meta        map[string]string
	// Capabilities is nil when the namespace restricts nothing.
	Capabilities *NamespaceCapabilities
	// Quota names a quota specification ("" for none).
	Quota string
	// NodePools, Vault and Consul are nil when unset.
	NodePools, Vault, Consul *NamespaceAccess
}

// NamespaceCapabilities restricts the task drivers and network modes jobs
// in a namespace may use. An empty Enabled list allows every one not
// Disabled.
type NamespaceCapabilities struct {
	EnabledTaskDrivers, DisabledTaskDrivers   []string
	EnabledNetworkModes, DisabledNetworkModes []string
}

// NamespaceAccess is a namespace's default node pool (or Vault or Consul
// cluster) and which others its jobs may use. A nil Allowed allows all;
// an empty, non-nil one allows only the default.
type NamespaceAccess struct {
	Default         string
	Allowed, Denied []string
}

// HasEnterpriseSettings reports whether ns sets anything only Nomad
// Enterprise accepts.
func (ns Namespace) HasEnterpriseSettings() bool {
	return ns.Quota != "" || ns.NodePools != nil || ns.Vault != nil || ns.Consul != nil
}

func namespaceFromAPI(n *api.Namespace) *Namespace {
	out := &Namespace{Name: n.Name, Description: n.Description, Meta: n.Meta, Quota: n.Quota}
	if c := n.Capabilities; c != nil {
		out.Capabilities = &NamespaceCapabilities{
			EnabledTaskDrivers: c.EnabledTaskDrivers, DisabledTaskDrivers: c.DisabledTaskDrivers,
			EnabledNetworkModes: c.EnabledNetworkModes, DisabledNetworkModes: c.DisabledNetworkModes,
		}
	}
	if p := n.NodePoolConfiguration; p != nil {
		out.NodePools = &NamespaceAccess{Default: p.Default, Allowed: p.Allowed, Denied: p.Denied}
	}
	if v := n.VaultConfiguration; v != nil {
		out.Vault = &NamespaceAccess{Default: v.Default, Allowed: v.Allowed, Denied: v.Denied}
	}
	if c := n.ConsulConfiguration; c != nil {
		out.Consul = &NamespaceAccess{Default: c.Default, Allowed: c.Allowed, Denied: c.Denied}
	}
	return out
}

func (ns Namespace) toAPI() *api.Namespace {
	out := &api.Namespace{Name: ns.Name, Description: ns.Description, Meta: ns.Meta, Quota: ns.Quota}
	if c := ns.Capabilities; c != nil {
		out.Capabilities = &api.NamespaceCapabilities{
			EnabledTaskDrivers: c.EnabledTaskDrivers, DisabledTaskDrivers: c.DisabledTaskDrivers,
			EnabledNetworkModes: c.EnabledNetworkModes, DisabledNetworkModes: c.DisabledNetworkModes,
		}
	}
	if p := ns.NodePools; p != nil {
		out.NodePoolConfiguration = &api.NamespaceNodePoolConfiguration{Default: p.Default, Allowed: p.Allowed, Denied: p.Denied}
	}
	if v := ns.Vault; v != nil {
		out.VaultConfiguration = &api.NamespaceVaultConfiguration{Default: v.Default, Allowed: v.Allowed, Denied: v.Denied}
	}
	if c := ns.Consul; c != nil {
		out.ConsulConfiguration = &api.NamespaceConsulConfiguration{Default: c.Default, Allowed: c.Allowed, Denied: c.Denied}
	}
	return out
}

// GetNamespace reads a namespace; (nil, nil) when it does not exist.
func (c *Client) GetNamespace(ctx context.Context, name string) (*Namespace, error) {
	n, err := getOrNil(ctx, c, "read namespace", func(ctx context.Context) (*api.Namespace, error) {
		out, _, err := c.api.Namespaces().Info(name, c.query(ctx, nil))
		return out, err
	}, "reading namespace %q", name)
	if err != nil || n == nil {
		return nil, err
	}
	return namespaceFromAPI(n), nil
}

// ListNamespaces lists the namespaces whose name starts with prefix, sorted
// by name, the default namespace included.
func (c *Client) ListNamespaces(ctx context.Context, prefix string) ([]Namespace, error) {
	list, err := readRetry(ctx, c, "list namespaces", func(ctx context.Context) ([]*api.Namespace, error) {
		out, _, err := c.api.Namespaces().PrefixList(prefix, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	out := make([]Namespace, 0, len(list))
	for _, n := range list {
		if n != nil {
			out = append(out, *namespaceFromAPI(n))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// WriteNamespace creates or updates a namespace (one call; not retried).
// Nomad CE refuses Enterprise settings (a quota, node pool, Vault or
// Consul configuration) with the whole write, which then changed nothing:
// *EnterpriseRequiredError.
func (c *Client) WriteNamespace(ctx context.Context, ns Namespace) error {
	_, err := c.api.Namespaces().Register(ns.toAPI(), c.write(ctx, ""))
	if isUnlicensed(err) || ns.Quota != "" && err != nil && strings.Contains(err.Error(), "non-existent quota") {
		return &EnterpriseRequiredError{Err: err}
	}
	if err != nil {
		return c.writeError(err)
	}
	return nil
}

// IsEnterprise asks the agent whether it is Nomad Enterprise: Nomad CE
// answers its Enterprise-only endpoints (here the quota list) with 501
// before any ACL check, so this needs no capability on CE. Enterprise
// answers 200, or 403 to a token without quota:read, which also says it is
// Enterprise.
func (c *Client) IsEnterprise(ctx context.Context) (bool, error) {
	// One call, not readRetry: CE's 501 is its answer, not a failure to
	// retry.
	_, _, err := c.api.Quotas().List(c.query(ctx, nil))
	switch {
	case err == nil, IsForbidden(err):
		return true, nil
	case statusCode(err) == 501:
		return false, nil
	}
	return false, err
}

// NamespaceContents is what lives in a namespace and keeps berth from
// deleting it: jobs (any status, until purged), Variables (by path), and
// host and CSI volumes (by name), each sorted.
type NamespaceContents struct {
	Jobs, Variables, HostVolumes, CSIVolumes []string
}

// Empty reports whether nothing lives in the namespace.
func (nc NamespaceContents) Empty() bool {
	return len(nc.Jobs)+len(nc.Variables)+len(nc.HostVolumes)+len(nc.CSIVolumes) == 0
}

// ReadNamespaceContents lists what lives in namespace name.
func (c *Client) ReadNamespaceContents(ctx context.Context, name string) (NamespaceContents, error) {
	var out NamespaceContents
	q := func(ctx context.Context) *api.QueryOptions { return c.query(ctx, &api.QueryOptions{Namespace: name}) }
	jobs, err := readRetry(ctx, c, "list namespace jobs", func(ctx context.Context) ([]*api.JobListStub, error) {
		l, _, err := c.api.Jobs().List(q(ctx))
		return l, err
	})
	if err != nil {
		return out, fmt.Errorf("listing the jobs in namespace %q: %w", name, err)
	}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, j.ID)
	}
	vars, err := readRetry(ctx, c, "list namespace variables", func(ctx context.Context) ([]*api.VariableMetadata, error) {
		l, _, err := c.api.Variables().List(q(ctx))
		return l, err
	})
	if err != nil {
		return out, fmt.Errorf("listing the Variables in namespace %q: %w", name, err)
	}
	for _, v := range vars {
		out.Variables = append(out.Variables, v.Path)
	}
	hosts, err := readRetry(ctx, c, "list namespace host volumes", func(ctx context.Context) ([]*api.HostVolumeStub, error) {
		l, _, err := c.api.HostVolumes().List(&api.HostVolumeListRequest{}, q(ctx))
		return l, err
	})
	if err != nil {
		return out, fmt.Errorf("listing the host volumes in namespace %q: %w", name, err)
	}
	for _, h := range hosts {
		out.HostVolumes = append(out.HostVolumes, h.Name)
	}
	csis, err := readRetry(ctx, c, "list namespace CSI volumes", func(ctx context.Context) ([]*api.CSIVolumeListStub, error) {
		l, _, err := c.api.CSIVolumes().List(q(ctx))
		return l, err
	})
	if err != nil {
		return out, fmt.Errorf("listing the CSI volumes in namespace %q: %w", name, err)
	}
	for _, v := range csis {
		out.CSIVolumes = append(out.CSIVolumes, v.ID)
	}
	for _, l := range [][]string{out.Jobs, out.Variables, out.HostVolumes, out.CSIVolumes} {
		sort.Strings(l)
	}
	return out, nil
}

// NamespaceInUseError says a namespace was not deleted because something
// still lives in it. Contents is what berth found; Err is Nomad's own
// refusal when Nomad refused (non-terminal allocations, a quota, or
// something created after berth looked), nil when berth refused first.
type NamespaceInUseError struct {
	Name     string
	Contents NamespaceContents
	Err      error
}

func (e *NamespaceInUseError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("namespace %q is not empty", e.Name)
}

func (e *NamespaceInUseError) Unwrap() error { return e.Err }

// isNamespaceInUse reports whether err is Nomad refusing to delete a
// namespace that still holds jobs, allocations, volumes, Variables or a
// quota.
func isNamespaceInUse(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"has non-terminal jobs", "has non-terminal allocations", "has volumes associated",
		"has variables associated", "has quotas associated"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// DeleteNamespace deletes an empty namespace; one that does not exist is
// not an error. Nomad itself lets a namespace go while stopped jobs or
// host volumes are still in it (they would be left behind, unreachable),
// so berth first lists what lives there and refuses with a
// *NamespaceInUseError, deleting nothing, unless it is empty.
func (c *Client) DeleteNamespace(ctx context.Context, name string) error {
	if existing, err := c.GetNamespace(ctx, name); err != nil || existing == nil {
		return err
	}
	contents, err := c.ReadNamespaceContents(ctx, name)
	if err != nil {
		return err
	}
	if !contents.Empty() {
		return &NamespaceInUseError{Name: name, Contents: contents}
	}
	_, err = c.api.Namespaces().Delete(name, c.write(ctx, ""))
	switch {
	case err == nil, IsNotFound(err):
		return nil
	case isNamespaceInUse(err):
		inUse := &NamespaceInUseError{Name: name, Err: err}
		if again, lerr := c.ReadNamespaceContents(ctx, name); lerr == nil {
			inUse.Contents = again
		}
		return inUse
	}
	return c.writeError(err)
}
