"""User-facing error types.

Every error a user can cause (a bad config value, an unknown claim, a wrong shape or path) derives
from :class:`JaxpapersError`. The CLI prints such errors as one line, without a traceback.
"""

from __future__ import annotations


class JaxpapersError(Exception):
    """Base class of errors whose message is meant for the user, printed as one line."""


class ConfigError(JaxpapersError, ValueError):
    """A config file, preset, field or value that does not exist or is not allowed."""


class UnknownNameError(JaxpapersError, KeyError):
    """A paper, claim, config or option name that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class CheckpointMismatchError(JaxpapersError):
    """A workdir holds a checkpoint written by a different model or config."""


class CheckpointDamagedError(JaxpapersError):
    """No checkpoint in a workdir could be read intact (each damaged one is named)."""


class NonFiniteError(JaxpapersError, FloatingPointError):
    """Training produced a NaN or Inf."""


class ClaimSkipped(JaxpapersError):
    """Raised inside an experiment when a requirement is unmet (an optional extra, a GPU)."""


class PrecisionError(JaxpapersError, RuntimeError):
    """A float64 computation was called without float64 enabled."""
