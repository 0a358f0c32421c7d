package schemacurve

import (
	"bufio"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A Group is a part of Terraform core's work. A profile sample belongs to
// the first context group (an activity: rendering the plan, validating,
// building the graph...) with a frame anywhere in its stack; failing that,
// to the operation group (msgpack, state codec, schema walks...) of the
// frame nearest its leaf that matches one. So the JSON and schema work of
// rendering the plan counts as rendering, and msgpack under ReadResource
// as msgpack.
type Group struct {
	Name    string
	Context bool
	re      *regexp.Regexp
}

// Groups in report order. OtherGroup takes the samples none matches.
var Groups = []Group{
	{"plan rendering (jsonformat, jsonplan, views)", true, regexp.MustCompile(`internal/command/jsonformat|internal/command/jsonplan|internal/command/jsonprovider|internal/command/views|internal/command/format`)},
	{"validation (validate walk, ValidateResourceConfig)", true, regexp.MustCompile(`NodeValidatableResource|\.ValidateResourceConfig|terraform\.\(\*Context\)\.Validate|validateResourceForbiddenEphemeralValues|ValidateResourceTypeConfig`)},
	{"graph building (transformers, dag)", true, regexp.MustCompile(`Transformer\)\.Transform|BasicGraphBuilder|\.Build\(|TransitiveReduction`)},
	{"plugin log parsing (go-plugin stderr)", true, regexp.MustCompile(`go-plugin\.\(\*Client\)\.logStderr|go-plugin\.parseJSON`)},
	{"GC (background)", true, regexp.MustCompile(`runtime\.gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge`)},
	{"msgpack (cty/msgpack)", false, regexp.MustCompile(`go-cty/cty/msgpack\.`)},
	{"state decode/encode (cty/json, states)", false, regexp.MustCompile(`go-cty/cty/json\.|internal/states\.|internal/states/statefile\.|internal/states/statemgr\.|upgradeResourceState|cty\.\(\*Type\)\.UnmarshalJSON`)},
	{"schema walks (ImpliedType, objchange, marks, conformance)", false, regexp.MustCompile(`configschema\.|hcldec\.ImpliedType|hcldec\.ObjectSpec\.impliedType|WithoutOptionalAttributes|internal/plans/objchange\.|TestConformance|UnmarkDeep|MarkWithPaths|internal/lang/ephemeral\.|internal/lang/marks\.|cty\.transform|cty\.Transform|cty\.Walk|cty\.ObjectVal|cty\.Object\b|cty\.ObjectWithOptionalAttrs|cty\.Value\.Equals|cty\.Value\.RawEquals`)},
	{"config evaluation (HCL decode)", false, regexp.MustCompile(`hcldec\.|hclsyntax\.|EvaluateBlock|evaluateBlock|internal/lang\.`)},
	{"plugin gRPC/protobuf", false, regexp.MustCompile(`google\.golang\.org/grpc|google\.golang\.org/protobuf|golang\.org/x/net/http2|internal/plugin6\.|internal/plugin\.|crypto/`)},
}

// OtherGroup names the samples no group matches.
const OtherGroup = "other"

// Classify sums the samples of `go tool pprof -traces` output by group.
func Classify(traces string) (map[string]time.Duration, time.Duration, error) {
	out := map[string]time.Duration{}
	var total time.Duration
	var value time.Duration
	var frames []string
	flush := func() {
		if value == 0 {
			return
		}
		g := group(frames)
		out[g] += value
		total += value
		value, frames = 0, nil
	}
	sc := bufio.NewScanner(strings.NewReader(traces))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			flush()
			continue
		}
		if !strings.HasPrefix(line, " ") {
			continue // the header
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if d, err := time.ParseDuration(f[0]); err == nil && len(f) > 1 {
			value, f = d, f[1:]
		}
		frames = append(frames, strings.Join(f, " "))
	}
	flush()
	return out, total, sc.Err()
}

// group is the group of a stack, leaf first.
func group(frames []string) string {
	for _, gr := range Groups {
		if gr.Context && slices.ContainsFunc(frames, gr.re.MatchString) {
			return gr.Name
		}
	}
	for _, f := range frames {
		for _, gr := range Groups {
			if !gr.Context && gr.re.MatchString(f) {
				return gr.Name
			}
		}
	}
	return OtherGroup
}
