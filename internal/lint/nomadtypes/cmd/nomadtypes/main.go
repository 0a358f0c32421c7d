// Command nomadtypes fails when a package given on the command line uses
// a Nomad API type outside its tests (see package nomadtypes). make lint
// runs it over internal/provider.
package main

import (
	"fmt"
	"os"

	"github.com/berthhq/terraform-provider-berth/internal/lint/nomadtypes"
)

func main() {
	findings, err := nomadtypes.Check(".", os.Args[1:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nomadtypes:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "nomadtypes: %d uses of Nomad API types; map them in nomadclient or a domain package\n", len(findings))
		os.Exit(1)
	}
}
