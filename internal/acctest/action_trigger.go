package acctest

import (
	"fmt"
	"strings"
)

// ActionOnCreate is the configuration of an action (Terraform 1.14+) of
// type kind, named name, whose config block holds config (attributes, one
// a line), and of the terraform_data of the same name that invokes it
// once, from the apply that creates it.
func ActionOnCreate(kind, name string, config ...string) string {
	return fmt.Sprintf(`
action %[1]q %[2]q {
  config {
    %[3]s
  }
}
resource "terraform_data" %[2]q {
  input = "1"
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.%[1]s.%[2]s]
    }
  }
}
`, kind, name, strings.Join(config, "\n    "))
}
