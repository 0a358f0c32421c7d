// Command schemajson prints berth's schemas as `terraform providers schema
// -json` would, for tfplugindocs (scripts/docs.sh).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/berthhq/terraform-provider-berth/internal/provider"
	"github.com/berthhq/terraform-provider-berth/internal/schemajson"
)

func main() {
	srv, err := providerserver.NewProtocol6WithError(provider.New("docs")())()
	if err == nil {
		var schemas any
		if schemas, err = schemajson.ProviderSchemas(context.Background(), srv, "berth"); err == nil {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			err = enc.Encode(schemas)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemajson:", err)
		os.Exit(1)
	}
}
