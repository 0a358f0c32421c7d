# namespace/name (or just name in the provider's namespace). A lease that
# does not verify against the configured signing key imports with
# verified = false, and the next plan replaces it.
terraform import berth_reservation.ci default/ci-runner-42
