"""The generated text-attributed graph suite, its batching, and loaders for real on-disk formats."""
