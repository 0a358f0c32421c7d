package jobspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// berth links no jobspec parser: HCL2 is the cluster's to read. These
// tests ask the test agent (make testacc exports NOMAD_ADDR), as
// nomadclient does, through POST /v1/jobs/parse.

// agentParser parses with the agent at addr and counts its requests.
type agentParser struct {
	addr  string
	calls atomic.Int64
}

func testParser(tb testing.TB) *agentParser {
	tb.Helper()
	addr := os.Getenv("NOMAD_ADDR")
	if addr == "" {
		tb.Skip("needs a Nomad agent: berth parses HCL2 with the cluster's own parser (make testacc starts one and sets NOMAD_ADDR)")
	}
	return &agentParser{addr: strings.TrimSuffix(addr, "/")}
}

func (p *agentParser) ParserID() string { return "test " + p.addr }

func (p *agentParser) ParseHCL(src string, vars map[string]string) ([]byte, error) {
	p.calls.Add(1)
	file, err := VariablesFile(Spec{Source: src, Variables: vars})
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{"JobHCL": src, "Variables": file})
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Post(p.addr+"/v1/jobs/parse", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode == http.StatusBadRequest:
		return nil, NomadParseError(string(out))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("parse: %s: %s", resp.Status, out)
	}
	return out, nil
}

// sharedParser is the parser every test of the process uses, so the
// process cache is shared as it is in the provider.
func sharedParser(tb testing.TB) Parser {
	tb.Helper()
	sharedOnce.Do(func() {
		if os.Getenv("NOMAD_ADDR") != "" {
			shared = testParser(tb)
		}
	})
	if shared == nil {
		tb.Skip("needs a Nomad agent: berth parses HCL2 with the cluster's own parser (make testacc starts one and sets NOMAD_ADDR)")
	}
	return shared
}

var (
	sharedOnce sync.Once
	shared     *agentParser
)
