"""A reader's own local Hugging Face causal LM behind the lab's interface (off by default).

``load_local_causal_lm(path)`` loads a model saved on this machine (``local_files_only``: nothing is ever
downloaded; a missing folder is an error) with eager attention, so attention probabilities are available, and
wraps it as :class:`HFCausalLM`: ``forward(idx) -> logits`` and the same named hook sites as our GPT
(``blocks.{i}.resid_pre|attn_out|mlp_out|resid_post``, :mod:`icmlbook.lm.hooks`). Decoder layers are found in
the common layouts (``model.layers`` of Llama/Qwen/Mistral, ``transformer.h`` of GPT-2), their attention in
``self_attn``/``attn`` and their MLP in ``mlp``. No chapter result comes from this path; the book's tests run it
on a tiny randomly initialised config.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from .hooks import HookSites

__all__ = ["HFCausalLM", "load_local_causal_lm"]


def _first_attr(obj, names):
    for n in names:
        cur = obj
        for part in n.split("."):
            cur = getattr(cur, part, None)
            if cur is None:
                break
        if cur is not None:
            return cur
    return None


class HFCausalLM(nn.Module, HookSites):
    """A ``transformers`` causal LM with the lab's hook sites; ``forward(idx) -> logits`` (B, T, V)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.hf = model
        layers = _first_attr(model, ["model.layers", "transformer.h", "gpt_neox.layers", "model.decoder.layers"])
        if not isinstance(layers, nn.ModuleList):
            raise ValueError(f"cannot find the decoder layers of {type(model).__name__} (looked for model.layers, "
                             "transformer.h, gpt_neox.layers, model.decoder.layers)")
        self.layers = layers
        self.n_hook_layers = len(layers)

    @property
    def vocab_size(self) -> int:
        return self.hf.get_output_embeddings().weight.shape[0]

    def forward(self, idx: torch.Tensor, return_attn: bool = False):
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= self.vocab_size):
            raise ValueError(f"token ids outside the vocabulary 0..{self.vocab_size - 1}")
        out = self.hf(input_ids=idx, output_attentions=return_attn, use_cache=False)
        return (out.logits, list(out.attentions)) if return_attn else out.logits

    def _attach(self, name, fn):
        _, i, kind = name.split(".")
        layer = self.layers[int(i)]
        if kind == "resid_pre":
            def pre(module, args, kwargs):
                if args:
                    return (fn(args[0]), *args[1:]), kwargs
                return args, {**kwargs, "hidden_states": fn(kwargs["hidden_states"])}
            return layer.register_forward_pre_hook(pre, with_kwargs=True)
        if kind == "resid_post":
            target = layer
        else:
            target = _first_attr(layer, ["self_attn", "attn", "attention"] if kind == "attn_out" else ["mlp"])
            if target is None:
                raise ValueError(f"layer {i} of {type(self.hf).__name__} has no {kind[:-4]} module")

        def post(module, inputs, output):
            if isinstance(output, tuple):
                return (fn(output[0]), *output[1:])
            return fn(output)
        return target.register_forward_hook(post)


def load_local_causal_lm(path: str | Path, dtype: torch.dtype = torch.float32, device: str = "cpu") -> HFCausalLM:
    """Load the causal LM saved in the local folder ``path`` (never downloads)."""
    from transformers import AutoModelForCausalLM

    folder = Path(path)
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} is not a local model folder (no config.json); this loader never "
                                "downloads: save a model there with save_pretrained first")
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager",
                                                 dtype=dtype)
    return HFCausalLM(model.to(device).eval())
