# Terraform 1.12 and later: import a token by its identity, its accessor ID.
import {
  to = berth_acl_token.ci
  identity = {
    accessor_id = "6c66d3d2-c346-a7c7-a454-70d31be32be3"
  }
}
