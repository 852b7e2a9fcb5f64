"""Named hook sites shared by our GPT and the Hugging Face adapter.

Every layer ``i`` exposes four sites on the residual stream: ``blocks.{i}.resid_pre`` (the block's input),
``blocks.{i}.attn_out`` (what attention adds), ``blocks.{i}.mlp_out`` (what the MLP adds) and
``blocks.{i}.resid_post`` (the block's output). ``model.hooked(read=..., add=...)`` records the first kind
and adds to the second, for the duration of a ``with`` block:

    with model.hooked(read=["blocks.1.resid_post"], add={"blocks.0.resid_pre": steer}) as cache:
        logits = model(ids)
    cache["blocks.1.resid_post"]            # (B, T, d), detached unless detach=False

``add`` values are tensors broadcast against the site's activation (B, T, d), or callables
``f(activation) -> activation``. A read site sees the activation after its own addition.
"""

from __future__ import annotations

import contextlib
from typing import Callable, Iterable, Mapping

import torch

__all__ = ["HookSites", "SITE_KINDS"]

SITE_KINDS = ("resid_pre", "attn_out", "mlp_out", "resid_post")


class HookSites:
    """Mixin: ``hook_names()``, ``hooked(read, add)``; a subclass implements ``_attach(name, fn) -> handle``
    where ``fn(activation) -> activation`` is applied at the site (the handle has ``remove()``)."""

    n_hook_layers: int

    def hook_names(self) -> list[str]:
        return [f"blocks.{i}.{k}" for i in range(self.n_hook_layers) for k in SITE_KINDS]

    def _attach(self, name: str, fn: Callable[[torch.Tensor], torch.Tensor]):  # pragma: no cover - abstract
        raise NotImplementedError

    @contextlib.contextmanager
    def hooked(self, read: Iterable[str] = (), add: Mapping[str, torch.Tensor | Callable] | None = None,
               detach: bool = True):
        read, add = list(read), dict(add or {})
        names = set(self.hook_names())
        bad = sorted((set(read) | set(add)) - names)
        if bad:
            raise ValueError(f"unknown hook sites {bad}; sites are blocks.<layer>.<{'|'.join(SITE_KINDS)}> "
                             f"for layers 0..{self.n_hook_layers - 1}")
        cache: dict[str, torch.Tensor] = {}
        handles = []
        try:
            for name in dict.fromkeys(read + list(add)):
                handles.append(self._attach(name, self._site_fn(name, add.get(name), name in read, cache, detach)))
            yield cache
        finally:
            for h in handles:
                h.remove()

    @staticmethod
    def _site_fn(name, addition, reading, cache, detach):
        def fn(x: torch.Tensor) -> torch.Tensor:
            if addition is not None:
                x = addition(x) if callable(addition) else x + addition.to(x.dtype)
            if reading:
                cache[name] = x.detach() if detach else x
            return x
        return fn
