"""Tiny video files for the decoder tests: flat-colour frames written losslessly with PyAV (skips without it)."""

import numpy as np
import pytest


def flat_frames(colours: np.ndarray, n: int = 32) -> np.ndarray:
    """uint8 [len(colours), n, n, 3]: frame i is filled with ``colours[i]``."""
    return np.broadcast_to(np.asarray(colours, np.uint8)[:, None, None, :], (len(colours), n, n, 3)).copy()


def write_mp4(path, frames: np.ndarray, fps: int) -> None:
    """``frames`` uint8 [T, H, W, 3] as a lossless H.264 (RGB) mp4 at ``fps``."""
    av = pytest.importorskip("av")
    with av.open(str(path), mode="w") as out:
        stream = out.add_stream("libx264rgb", rate=fps)
        stream.height, stream.width = frames.shape[1:3]
        stream.pix_fmt = "rgb24"
        stream.options = {"qp": "0"}  # lossless
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
