"""Offline data: espeak-ng speech, procedural sound/music, the toy worlds, and loaders for real corpora."""

from jaxpapers.unialm.data import espeak, loaders, procedural, worlds

__all__ = ["espeak", "loaders", "procedural", "worlds"]
