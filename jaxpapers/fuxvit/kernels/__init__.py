"""FuxViT kernels: one folder per op (``fsa/``: Frame Selective Attention)."""
