// Package schemajson writes a provider's schemas in the format of
// `terraform providers schema -json`, straight from the provider server.
//
// Docs are generated from that JSON (tfplugindocs --providers-schema), so
// they do not depend on which Terraform CLI is installed: Terraform 1.11
// knows nothing of resource identities, and its output would silently
// drop them from the docs.
package schemajson

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// ProviderSchemas asks srv for its schemas and returns them under name.
func ProviderSchemas(ctx context.Context, srv tfprotov6.ProviderServer, name string) (*tfjson.ProviderSchemas, error) {
	resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	if err := diagsError(resp.Diagnostics); err != nil {
		return nil, err
	}
	ids, err := srv.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		return nil, err
	}
	if err := diagsError(ids.Diagnostics); err != nil {
		return nil, err
	}
	ps := &tfjson.ProviderSchema{
		ResourceSchemas:         map[string]*tfjson.Schema{},
		DataSourceSchemas:       map[string]*tfjson.Schema{},
		ResourceIdentitySchemas: map[string]*tfjson.IdentitySchema{},
		ListResourceSchemas:     map[string]*tfjson.Schema{},
		ActionSchemas:           map[string]*tfjson.ActionSchema{},
		// Ephemeral resources: tfplugindocs renders them from here.
		EphemeralResourceSchemas: map[string]*tfjson.Schema{},
	}
	var errs []error
	convert := func(what string, s *tfprotov6.Schema) *tfjson.Schema {
		out, err := schema(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
		return out
	}
	ps.ConfigSchema = convert("provider", resp.Provider)
	for n, s := range resp.ResourceSchemas {
		ps.ResourceSchemas[n] = convert(n, s)
	}
	for n, s := range resp.DataSourceSchemas {
		ps.DataSourceSchemas[n] = convert(n, s)
	}
	for n, s := range resp.ListResourceSchemas {
		ps.ListResourceSchemas[n] = convert("list "+n, s)
	}
	for n, s := range resp.EphemeralResourceSchemas {
		ps.EphemeralResourceSchemas[n] = convert("ephemeral "+n, s)
	}
	for n, a := range resp.ActionSchemas {
		if a != nil {
			if s := convert("action "+n, a.Schema); s != nil {
				ps.ActionSchemas[n] = &tfjson.ActionSchema{Block: s.Block}
			}
		}
	}
	for n, s := range ids.IdentitySchemas {
		is, err := identity(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("identity of %s: %w", n, err))
		}
		ps.ResourceIdentitySchemas[n] = is
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &tfjson.ProviderSchemas{FormatVersion: "1.0", Schemas: map[string]*tfjson.ProviderSchema{name: ps}}, nil
}

func diagsError(ds []*tfprotov6.Diagnostic) error {
	var msgs []string
	for _, d := range ds {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			msgs = append(msgs, d.Summary+": "+d.Detail)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

func schema(s *tfprotov6.Schema) (*tfjson.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := block(s.Block)
	return &tfjson.Schema{Version: uint64(max(s.Version, 0)), Block: b}, err
}

func block(b *tfprotov6.SchemaBlock) (*tfjson.SchemaBlock, error) {
	if b == nil {
		return nil, nil
	}
	out := &tfjson.SchemaBlock{
		Description: b.Description, DescriptionKind: descriptionKind(b.DescriptionKind), Deprecated: b.Deprecated,
	}
	if len(b.Attributes) > 0 {
		out.Attributes = map[string]*tfjson.SchemaAttribute{}
	}
	for _, a := range b.Attributes {
		sa, err := attribute(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		out.Attributes[a.Name] = sa
	}
	if len(b.BlockTypes) > 0 {
		out.NestedBlocks = map[string]*tfjson.SchemaBlockType{}
	}
	for _, nb := range b.BlockTypes {
		inner, err := block(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", nb.TypeName, err)
		}
		out.NestedBlocks[nb.TypeName] = &tfjson.SchemaBlockType{
			NestingMode: blockNesting[nb.Nesting], Block: inner,
			MinItems: uint64(max(nb.MinItems, 0)), MaxItems: uint64(max(nb.MaxItems, 0)),
		}
	}
	return out, nil
}

var blockNesting = map[tfprotov6.SchemaNestedBlockNestingMode]tfjson.SchemaNestingMode{
	tfprotov6.SchemaNestedBlockNestingModeSingle: tfjson.SchemaNestingModeSingle,
	tfprotov6.SchemaNestedBlockNestingModeList:   tfjson.SchemaNestingModeList,
	tfprotov6.SchemaNestedBlockNestingModeSet:    tfjson.SchemaNestingModeSet,
	tfprotov6.SchemaNestedBlockNestingModeMap:    tfjson.SchemaNestingModeMap,
	tfprotov6.SchemaNestedBlockNestingModeGroup:  tfjson.SchemaNestingModeGroup,
}

var objectNesting = map[tfprotov6.SchemaObjectNestingMode]tfjson.SchemaNestingMode{
	tfprotov6.SchemaObjectNestingModeSingle: tfjson.SchemaNestingModeSingle,
	tfprotov6.SchemaObjectNestingModeList:   tfjson.SchemaNestingModeList,
	tfprotov6.SchemaObjectNestingModeSet:    tfjson.SchemaNestingModeSet,
	tfprotov6.SchemaObjectNestingModeMap:    tfjson.SchemaNestingModeMap,
}

func attribute(a *tfprotov6.SchemaAttribute) (*tfjson.SchemaAttribute, error) {
	out := &tfjson.SchemaAttribute{
		Description: a.Description, DescriptionKind: descriptionKind(a.DescriptionKind), Deprecated: a.Deprecated,
		Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, WriteOnly: a.WriteOnly,
	}
	if a.NestedType != nil {
		nt := &tfjson.SchemaNestedAttributeType{NestingMode: objectNesting[a.NestedType.Nesting], Attributes: map[string]*tfjson.SchemaAttribute{}}
		for _, na := range a.NestedType.Attributes {
			sa, err := attribute(na)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", na.Name, err)
			}
			nt.Attributes[na.Name] = sa
		}
		out.AttributeNestedType = nt
		return out, nil
	}
	t, err := ctyType(a.Type)
	out.AttributeType = t
	return out, err
}

func identity(s *tfprotov6.ResourceIdentitySchema) (*tfjson.IdentitySchema, error) {
	out := &tfjson.IdentitySchema{Version: uint64(max(s.Version, 0)), Attributes: map[string]*tfjson.IdentityAttribute{}}
	for _, a := range s.IdentityAttributes {
		t, err := ctyType(a.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		out.Attributes[a.Name] = &tfjson.IdentityAttribute{
			IdentityType: t, Description: a.Description, RequiredForImport: a.RequiredForImport, OptionalForImport: a.OptionalForImport,
		}
	}
	return out, nil
}

// ctyType converts through JSON: tftypes and cty write types the same way
// (`"string"`, `["list","string"]`, `["object",{…}]`).
func ctyType(t tftypes.Type) (cty.Type, error) {
	if t == nil {
		return cty.NilType, errors.New("attribute has no type")
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return cty.NilType, err
	}
	var out cty.Type
	err = out.UnmarshalJSON(raw)
	return out, err
}

func descriptionKind(k tfprotov6.StringKind) tfjson.SchemaDescriptionKind {
	if k == tfprotov6.StringKindMarkdown {
		return tfjson.SchemaDescriptionKindMarkdown
	}
	return tfjson.SchemaDescriptionKindPlain
}
