"""Event streams, the snapshot builder, on-disk loaders and the synthetic churn generators."""
