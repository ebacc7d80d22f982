"""The Fan Feast card pack: this package's folder holds its pack.yaml and cards."""
