"""research: BM25 search of a tenant's corpus with cited spans; approved egress to a provider."""
