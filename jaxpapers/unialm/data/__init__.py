"""Offline data: espeak-ng speech, procedural sound/music, the toy worlds, loaders for real corpora and the
grain pipelines that feed codec training."""

from jaxpapers.unialm.data import espeak, loaders, pipeline, procedural, worlds

__all__ = ["espeak", "loaders", "pipeline", "procedural", "worlds"]
