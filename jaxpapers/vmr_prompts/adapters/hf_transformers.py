"""Adapter for real MLLMs through Hugging Face ``transformers`` (optional extra ``[mllm]``; GPU).

Frames are passed as a list of PIL images with the true fps. ``answer_logprobs`` reads the next-token distribution
at the first answer position (a full-vocabulary log-softmax); when the chat template leaves the model to emit a
leading newline/space first, that token is appended and the distribution one step later is read instead (spec
Pitfalls). The numeric helpers below are plain NumPy and tested; the model class itself has **not been run on a
real model** in this repository (no weights are downloadable here).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from jaxpapers.core.checks import check_choice
from jaxpapers.core.errors import ConfigError

# Our choice of four model families (the paper's four are unknown) and the repo ids they stand for.
FAMILIES: dict[str, str] = {
    "qwen2.5-vl": "Qwen/Qwen2.5-VL-7B-Instruct",
    "qwen2-vl": "Qwen/Qwen2-VL-7B-Instruct",
    "llava-video": "llava-hf/LLaVA-NeXT-Video-7B-hf",
    "internvl": "OpenGVLab/InternVL3-8B-hf",
}


def chat_messages(prompt: str) -> list[dict]:
    """One user turn: the video placeholder, then the text (the processor receives the frames separately)."""
    return [{"role": "user", "content": [{"type": "video"}, {"type": "text", "text": prompt}]}]


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """float64 log-softmax over the full vocabulary (last axis)."""
    x = np.asarray(logits, np.float64)
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def option_logprobs(logits: np.ndarray, option_ids: dict[str, int]) -> dict[str, float]:
    """{option: log p(its first token)} from one next-token logits row [V] (full-vocabulary softmax)."""
    lp = log_softmax(logits)
    return {o: float(lp[i]) if 0 <= i < lp.shape[-1] else -np.inf for o, i in option_ids.items()}


def first_answer_logits(next_logits: Callable[[list[int]], np.ndarray], prompt_ids: Sequence[int],
                        is_blank: Callable[[int], bool], max_skip: int = 2) -> np.ndarray:
    """Logits at the true first answer token: while the greedy next token is blank (a newline or space the
    template leaves to the model), append it and look one step further (at most ``max_skip`` times)."""
    ids = list(prompt_ids)
    logits = next_logits(ids)
    for _ in range(max_skip):
        top = int(np.argmax(logits))
        if not is_blank(top):
            break
        ids.append(top)
        logits = next_logits(ids)
    return logits


class HFTransformersVLM:
    """A ``transformers`` image-text-to-text model behind :class:`~jaxpapers.vmr_prompts.model_api
    .VideoLanguageModel` (greedy decoding). ``family`` picks the default repo id; ``model_id`` overrides it."""

    def __init__(self, family: str = "qwen2.5-vl", model_id: str | None = None, device: str = "cuda",
                 dtype: str = "bfloat16", revision: str | None = None):
        check_choice("family", family, tuple(FAMILIES))
        try:
            import torch
            import transformers
        except ImportError:
            raise ConfigError("HFTransformersVLM needs torch and transformers: pip install 'jaxpapers[mllm]'") \
                from None
        self._torch = torch
        self.name = model_id or FAMILIES[family]
        self.processor = transformers.AutoProcessor.from_pretrained(self.name, revision=revision)
        self.model = transformers.AutoModelForImageTextToText.from_pretrained(
            self.name, revision=revision, torch_dtype=getattr(torch, dtype)).to(device).eval()
        self.device = device

    def _inputs(self, frames: np.ndarray, fps: float, prompt: str):
        from PIL import Image

        text = self.processor.apply_chat_template(chat_messages(prompt), add_generation_prompt=True, tokenize=False)
        video = [Image.fromarray(f) for f in frames]
        return self.processor(text=[text], videos=[video], fps=fps, return_tensors="pt").to(self.device)

    def generate(self, frames: np.ndarray, fps: float, prompt: str, max_new_tokens: int = 64) -> str:
        inputs = self._inputs(frames, fps, prompt)
        with self._torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
        new = out[0, inputs["input_ids"].shape[1]:]
        return self.processor.batch_decode(new[None], skip_special_tokens=True)[0]

    def answer_logprobs(self, frames: np.ndarray, fps: float, prompt: str, options: Sequence[str]) -> dict[str, float]:
        torch, tok = self._torch, self.processor.tokenizer
        inputs = self._inputs(frames, fps, prompt)

        def next_logits(ids):
            extra = ids[inputs["input_ids"].shape[1]:]
            feed = dict(inputs)
            if extra:
                add = torch.tensor([extra], device=self.device)
                feed["input_ids"] = torch.cat([inputs["input_ids"], add], 1)
                feed["attention_mask"] = torch.ones_like(feed["input_ids"])
            with torch.no_grad():
                return self.model(**feed).logits[0, -1].float().cpu().numpy()

        logits = first_answer_logits(next_logits, inputs["input_ids"][0].tolist(),
                                     lambda i: tok.decode([i]).strip() == "")
        ids = {o: (tok.encode(o, add_special_tokens=False) or [-1])[0] for o in options}
        return option_logprobs(logits, ids)

    def params_fingerprint(self) -> str:
        """blake2b over every parameter's name, shape, dtype, sum and first 64 values (cheap on 7B weights)."""
        h = hashlib.blake2b(digest_size=16)
        for name, p in self.model.state_dict().items():
            flat = p.detach().float().flatten()
            h.update(f"{name}{tuple(p.shape)}{p.dtype}{float(flat.sum())}".encode())
            h.update(flat[:64].cpu().numpy().tobytes())
        return h.hexdigest()
