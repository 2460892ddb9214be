"""Precomputed image/text features from a local path (pretrained encoders cannot be downloaded here).

Layout, per split (``train``, ``val``, ``test``)::

    {root}/{split}_img.npy     (N, d_x)  image features
    {root}/{split}_txt.npy     (M, d_y)  caption features (M = 5 N for Flickr30k/COCO)
    {root}/{split}_pairs.npy   (M,) image index of each caption, or (P, 2) rows (image, caption)

or one ``{root}/{split}.npz`` (or an ``.npz`` path) holding arrays ``img``, ``txt`` and ``pairs``.
Features are returned uncentered: center them with :func:`center_features` on the *training* mean
(spec Pitfalls).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from jaxpapers.core.data import read_npy
from jaxpapers.core.errors import ConfigError

KEYS: tuple[str, ...] = ("img", "txt", "pairs")


@dataclasses.dataclass(frozen=True)
class PairedFeatures:
    """Image features, caption features and the image index of every caption."""

    img: np.ndarray  # (N, d_x) float32
    txt: np.ndarray  # (M, d_y) float32
    txt_to_img: np.ndarray  # (M,) int32

    @property
    def num_images(self) -> int:
        return self.img.shape[0]

    def positives(self) -> np.ndarray:
        """(N, M) mask: caption j describes image i."""
        return self.txt_to_img[None, :] == np.arange(self.num_images)[:, None]

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Training pairs: every caption with its image, ``(img[txt_to_img], txt)``."""
        return self.img[self.txt_to_img], self.txt


def _load_arrays(root: Path, split: str) -> dict[str, np.ndarray]:
    npz = root if root.suffix == ".npz" else root / f"{split}.npz"
    if npz.is_file():
        with np.load(npz) as f:
            missing = [k for k in KEYS if k not in f.files]
            if missing:
                raise ConfigError(f"{str(npz)!r} lacks array(s) {', '.join(missing)}; it holds {', '.join(f.files)}")
            return {k: f[k] for k in KEYS}
    if root.suffix == ".npz":
        raise ConfigError(f"feature file {str(root)!r} does not exist")
    if not root.is_dir():
        raise ConfigError(f"feature directory {str(root)!r} does not exist")
    out = {}
    for k in KEYS:
        p = root / f"{split}_{k}.npy"
        if not p.is_file():
            raise ConfigError(
                f"feature file {str(p)!r} does not exist; expected {split}_img.npy, {split}_txt.npy and "
                f"{split}_pairs.npy (or {split}.npz) in {str(root)!r}"
            )
        out[k] = read_npy(p, what="feature file")
    return out


def load_features(root: str | Path, split: str = "train") -> PairedFeatures:
    """Loads and validates one split's features (see the module docstring for the layout)."""
    a = _load_arrays(Path(root), split)
    img, txt, pairs = a["img"], a["txt"], np.asarray(a["pairs"])
    where = f"{str(root)!r} ({split})"
    if img.ndim != 2 or txt.ndim != 2:
        raise ConfigError(f"{where}: img and txt must be 2-D (N, d); got {img.shape} and {txt.shape}")
    if not (np.issubdtype(pairs.dtype, np.integer)):
        raise ConfigError(f"{where}: pairs must be integers; got {pairs.dtype}")
    if pairs.ndim == 1:
        if pairs.shape[0] != txt.shape[0]:
            raise ConfigError(f"{where}: pairs has {pairs.shape[0]} entries for {txt.shape[0]} captions")
        txt_to_img = pairs
    elif pairs.ndim == 2 and pairs.shape[1] == 2:
        order = np.argsort(pairs[:, 1], kind="stable")
        if not np.array_equal(pairs[order, 1], np.arange(txt.shape[0])):
            raise ConfigError(f"{where}: pairs (image, caption) must list every caption 0..{txt.shape[0] - 1} once")
        txt_to_img = pairs[order, 0]
    else:
        raise ConfigError(f"{where}: pairs has shape {pairs.shape}; expected (M,) or (P, 2)")
    if txt_to_img.size and (txt_to_img.min() < 0 or txt_to_img.max() >= img.shape[0]):
        raise ConfigError(f"{where}: pairs holds image indices outside [0, {img.shape[0]})")
    if not (np.all(np.isfinite(img)) and np.all(np.isfinite(txt))):
        raise ConfigError(f"{where}: features contain NaN or Inf")
    return PairedFeatures(img.astype(np.float32), txt.astype(np.float32), txt_to_img.astype(np.int32))


def center_features(train: PairedFeatures, *others: PairedFeatures) -> list[PairedFeatures]:
    """Subtracts the *training* means (of images and of captions) from every split."""
    mx, my = train.img.mean(0), train.txt.mean(0)
    return [dataclasses.replace(f, img=f.img - mx, txt=f.txt - my) for f in (train, *others)]
