# A cluster bootstrapped elsewhere, by its bootstrap token's accessor ID:
terraform import berth_acl_bootstrap.this 6c66d3d2-c346-a7c7-a454-70d31be32be3
