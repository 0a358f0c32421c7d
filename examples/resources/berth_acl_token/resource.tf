# A token for the CI system that deploys the web team's jobs. Nomad makes
# the secret; berth writes it to the Variable below and keeps only the
# accessor ID in state.
resource "berth_acl_token" "ci" {
  name                 = "ci-deployer"
  policies             = ["web-deploy"]
  expiration_ttl       = "24h"
  secret_variable_path = "tokens/ci-deployer"
}

# Who receives the secret reads the Variable, e.g. in another
# configuration, without storing it:
#
#   ephemeral "berth_variable" "ci_token" {
#     path = "tokens/ci-deployer"
#   }
#   ... ephemeral.berth_variable.ci_token.items["secret_id"]
#
# or on the command line: nomad var get -item=secret_id tokens/ci-deployer
