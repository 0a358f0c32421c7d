# By the token's accessor ID (never its secret):
terraform import berth_acl_token.ci 6c66d3d2-c346-a7c7-a454-70d31be32be3
