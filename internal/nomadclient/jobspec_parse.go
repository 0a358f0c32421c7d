package nomadclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// clusterParser is the cluster's own jobspec parser (POST /v1/jobs/parse,
// what `nomad job run` asks), bound to one operation's context: berth
// reads every block the cluster knows, whatever the cluster's version,
// and links no parser of its own. Nomad answers with the job as its JSON
// API carries it, which jobspec.Parse keeps whole (fields berth's api
// structs lack included).
type clusterParser struct {
	c         *Client
	ctx       context.Context
	namespace string // the parse needs parse-job or submit-job here
	// canonicalize asks Nomad to fill in its defaults (berth_jobspec's
	// canonicalize); berth's own parses never do, so that a job compares
	// with the jobspec as written.
	canonicalize bool
}

// parser is the cluster's parser for one operation in namespace ("" is
// the provider's).
func (c *Client) parser(ctx context.Context, namespace string) jobspec.Parser {
	if namespace == "" {
		namespace = c.namespace
	}
	return &clusterParser{c: c, ctx: ctx, namespace: namespace}
}

// ParserID is the cluster and its version: two clients of one address
// read a jobspec alike until the cluster is upgraded (ClusterVersion reads
// the version once per process; "" when the token may not read it).
func (p *clusterParser) ParserID() string {
	return p.c.address + " " + p.c.ClusterVersion(p.ctx)
}

// parseRequest is the body of POST /v1/jobs/parse.
type parseRequest struct {
	JobHCL       string
	Variables    string
	Canonicalize bool
}

func (p *clusterParser) ParseHCL(src string, vars map[string]string) ([]byte, error) {
	file, err := jobspec.VariablesFile(jobspec.Spec{Source: src, Variables: vars})
	if err != nil {
		return nil, err
	}
	req := parseRequest{JobHCL: src, Variables: file, Canonicalize: p.canonicalize}
	out, err := readRetry(p.ctx, p.c, "parse jobspec", func(ctx context.Context) (json.RawMessage, error) {
		var out json.RawMessage
		_, err := p.c.api.Raw().Write("/v1/jobs/parse", &req, &out, (&api.WriteOptions{Namespace: p.namespace}).WithContext(ctx))
		return out, err
	})
	if err == nil {
		return out, nil
	}
	if statusCode(err) == 400 {
		return nil, jobspec.NomadParseError(responseBody(err))
	}
	return nil, fmt.Errorf("asking the cluster to parse the jobspec: %w", p.c.classify(err, "parse jobspec"))
}

// responseBody is the text Nomad answered an error with.
func responseBody(err error) string {
	var ure api.UnexpectedResponseError
	if errors.As(err, &ure) {
		return ure.Body()
	}
	var pure *api.UnexpectedResponseError
	if errors.As(err, &pure) && pure != nil {
		return pure.Body()
	}
	return err.Error()
}

// DescribeJobspec parses s with the cluster's parser (in namespace when
// the jobspec names none) and summarizes it (jobspec.Describe).
func (c *Client) DescribeJobspec(ctx context.Context, s jobspec.Spec, namespace string) (jobspec.Summary, error) {
	return jobspec.Describe(s, c.parser(ctx, namespace))
}

// DescribeJobspecUnstable is DescribeJobspec with the fields that differ
// between two parses (jobspec.DescribeUnstable).
func (c *Client) DescribeJobspecUnstable(ctx context.Context, s jobspec.Spec, namespace string) (jobspec.Summary, []string, error) {
	return jobspec.DescribeUnstable(s, c.parser(ctx, namespace))
}

// ParseJobspecJSON is Nomad's JSON of the job the HCL2 jobspec s
// describes, as the cluster's parser answers it (uncached, every field the
// cluster knows), after berth's offline checks (jobspec.CheckOffline);
// canonicalize asks the cluster to fill in its defaults. A jobspec refused
// is a *jobspec.ParseError.
func (c *Client) ParseJobspecJSON(ctx context.Context, s jobspec.Spec, canonicalize bool) (string, error) {
	s.Format = jobspec.FormatHCL2
	if err := jobspec.CheckOffline(s); err != nil {
		return "", err
	}
	p := &clusterParser{c: c, ctx: ctx, namespace: c.namespace, canonicalize: canonicalize}
	raw, err := p.ParseHCL(s.Source, s.Variables)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return "", fmt.Errorf("decoding the parsed job: %w", err)
	}
	return out.String(), nil
}

// Parser is the cluster's parser for one operation, for the tests that
// read jobspecs as berth does.
func (c *Client) Parser(ctx context.Context, namespace string) jobspec.Parser {
	return c.parser(ctx, namespace)
}

// ParserID names the cluster's parser as jobspec's cache and berth_job's
// kept parse know it (clusterParser.ParserID).
func (c *Client) ParserID(ctx context.Context) string { return c.parser(ctx, "").ParserID() }
