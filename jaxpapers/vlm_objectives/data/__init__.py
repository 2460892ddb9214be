"""Data for the vision–language objectives: caption annotation files (Flickr30k/COCO Karpathy JSON,
COCO captions JSON, CC3M webdataset shards or TSV), precomputed feature arrays and the procedural
ShapesCaptions set. Loaders read local disk only; nothing is downloaded."""

from jaxpapers.vlm_objectives.data.cc3m_wds import iter_webdataset, load_cc3m_tsv, load_cc3m_webdataset
from jaxpapers.vlm_objectives.data.coco_captions import load_coco_captions
from jaxpapers.vlm_objectives.data.features import PairedFeatures, center_features, load_features
from jaxpapers.vlm_objectives.data.karpathy_json import CaptionedImage, load_karpathy
from jaxpapers.vlm_objectives.data.shapes_captions import VOCAB, bag_of_words, make_shapes_captions

__all__ = [
    "VOCAB",
    "CaptionedImage",
    "PairedFeatures",
    "bag_of_words",
    "center_features",
    "iter_webdataset",
    "load_cc3m_tsv",
    "load_cc3m_webdataset",
    "load_coco_captions",
    "load_features",
    "load_karpathy",
    "make_shapes_captions",
]
