"""One module per claim group: ``growth`` (S1–S3), ``diversity`` (S4, S5, S7), ``embeddings`` (S6)."""

from jaxpapers.selfplay_proving.experiments import diversity, embeddings, growth

__all__ = ["diversity", "embeddings", "growth"]
