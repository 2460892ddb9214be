"""Offline data: espeak-ng speech, procedural sound/music, the toy worlds, loaders for real corpora and the
grain pipelines that feed codec training; the attribute world (full preset)."""

from jaxpapers.unialm.data import attributes, espeak, loaders, pipeline, procedural, worlds

__all__ = ["attributes", "espeak", "loaders", "pipeline", "procedural", "worlds"]
