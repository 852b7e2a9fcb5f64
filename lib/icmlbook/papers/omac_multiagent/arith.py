"""The second task family: multi-step arithmetic answered by **small language models trained from scratch** (on
the book's lab :mod:`icmlbook.lm` and trainer :mod:`icmlbook.training`), never by an LLM.

Tasks
    A query is an expression of three digits and two operators, one of the shapes ``a+b+c``, ``a*b+c`` and
    ``a+b*c`` (usual precedence; every value lies in 0..90), written ``3*4+5=`` and answered with two digits
    (``17``). The 3,000 possible expressions are split once, by a fixed seeded permutation, into a half the
    models train on and a half the tasks are drawn from: every validation and test query is an expression no
    model saw in training.
Checks (the analogue of the DSL's visible examples)
    Two residue checks an agent or a controller may run on an answer without knowing the truth: casting out
    threes (the answer and the expression agree modulo 3) and parity (modulo 2). About one wrong answer in six
    passes both, so they filter without deciding.
Agents (:class:`LMAgentSet`)
    Small GPTs with a character tokenizer, trained on lines of four solved expressions (``;3*4+5=17;2+2+2=06;...``)
    with the loss on the answer digits, differing in width and in data mix (a general model; one that mostly
    saw sums; one that mostly saw products). An agent's *configuration* (the chapter's "prompt") is the model,
    the number and choice of worked examples put before the query (few-shot), the decoding temperature, the
    number of samples and how one answer is chosen from them (majority vote, or the first that passes the
    residue checks), and how it treats peers' answers.
Answers
    An answer is a two-digit number, so the model's whole answer distribution at temperature ``T`` is computed
    exactly, by one batched forward pass in which each query's row carries its ten possible first digits side
    by side (tree attention, :func:`digit_logits`): the probability of ``d1 d2`` is softmax(l1/T)[d1] · softmax(l2[d1]/T)[d2] over the digit logits (decoding
    restricted to digits).
    Samples are drawn from it by inverse CDF on the query's common random numbers, as the program agents draw
    programs from their grammar prior.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Sequence

import numpy as np
import torch

from ...lm import GPT, CharTokenizer, GPTConfig, lm_loss
from ...training import Evaluate, PlateauTest, Trainer, TrainerConfig, WarmupCosine, plateau_from_curve

__all__ = ["SHAPES", "MODELS", "N_ANSWERS", "ALL_PROBLEMS", "TRAIN_POOL", "TASK_POOL", "value", "problem_text",
           "residue_hits", "LMSpec", "LMAgentSet", "train_lm_agents", "ArithBank", "ArithTable", "ArithSplit",
           "make_arith_split", "TOKENIZER", "model_specs"]

SHAPES: tuple[str, ...] = ("a+b+c", "a*b+c", "a+b*c")
#: the trained models an agent may use: (name, data mix over SHAPES)
MODELS: dict[str, tuple[float, float, float]] = {"general": (1 / 3, 1 / 3, 1 / 3), "sums": (0.8, 0.1, 0.1),
                                                 "products": (0.1, 0.45, 0.45)}
N_ANSWERS = 100
N_CHECKS = 2
TOKENIZER = CharTokenizer("0123456789+*=;")
_DIGITS = torch.tensor([TOKENIZER.token_to_id(str(d)) for d in range(10)])


def value(shape: int, a: int, b: int, c: int) -> int:
    """The value of expression (``SHAPES[shape]``, digits a, b, c) under the usual precedence."""
    return (a + b + c, a * b + c, a + b * c)[int(shape)]


def problem_text(shape: int, a: int, b: int, c: int) -> str:
    op1, op2 = SHAPES[int(shape)][1], SHAPES[int(shape)][3]
    return f"{a}{op1}{b}{op2}{c}="


#: every expression as (shape, a, b, c)
ALL_PROBLEMS = np.array([(s, a, b, c) for s in range(3) for a in range(10) for b in range(10) for c in range(10)])
_perm = np.random.default_rng(20260505).permutation(len(ALL_PROBLEMS))
#: the half the models train on and the half the tasks are drawn from (disjoint)
TRAIN_POOL = ALL_PROBLEMS[np.sort(_perm[: len(_perm) // 2])]
TASK_POOL = ALL_PROBLEMS[np.sort(_perm[len(_perm) // 2:])]
VALUES = np.array([value(*p) for p in ALL_PROBLEMS])


def residue_hits(truth: int) -> np.ndarray:
    """(N_ANSWERS,) how many of the two residue checks (mod 3, mod 2) each answer 0..99 passes for an expression
    whose value is ``truth`` (a check computes the expression's residue from its digits, as casting out nines
    does, and compares it with the answer's)."""
    ans = np.arange(N_ANSWERS)
    return (ans % 3 == truth % 3).astype(np.int64) + (ans % 2 == truth % 2)


def _line(problems: np.ndarray) -> str:
    return ";" + "".join(problem_text(*p) + f"{value(*p):02d};" for p in problems)


# ----------------------------------------------------------------------------------------------- the models
@dataclasses.dataclass(frozen=True)
class LMSpec:
    """One small LM: its name (a key of :data:`MODELS`), width, depth, updates, batch, learning rate and seed."""

    name: str
    d_model: int
    n_layer: int
    steps: int
    batch: int = 64
    lr: float = 3e-3
    seed: int = 0
    eval_every: int = 25


def model_specs(d_model: int, n_layer: int, steps: int, seed: int, batch: int = 64) -> tuple[LMSpec, ...]:
    """The three models of the pool: the general one at ``d_model``, the two specialists at three quarters of it
    (rounded to a multiple of 8), all with the same number of updates."""
    small = max(8, (3 * d_model // 4) // 8 * 8)
    return tuple(LMSpec(n, d_model if n == "general" else small, n_layer, steps, batch, seed=seed * 10 + i)
                 for i, n in enumerate(MODELS))


_TRAIN_TOKENS = None


def _train_tokens() -> torch.Tensor:
    """(len(TRAIN_POOL), 9) token ids of each training expression with its answer and separator."""
    global _TRAIN_TOKENS
    if _TRAIN_TOKENS is None:                     # rows of the solved-expression table (session 15: encoded once there)
        _TRAIN_TOKENS = torch.from_numpy(_token_tables()[1][_rows(TRAIN_POOL, "TRAIN_POOL", 2)])
    return _TRAIN_TOKENS


def _batch_source(spec: LMSpec, per_line: int = 3):
    """Micro-batch ``i``: ``batch`` lines of ``per_line`` solved training expressions (shapes drawn from the
    model's data mix), seeded by (spec.seed, i); targets masked to the answer digits."""
    mix = np.asarray(MODELS[spec.name])
    by_shape = [np.flatnonzero(TRAIN_POOL[:, 0] == s) for s in range(3)]
    toks = _train_tokens()
    sep = torch.full((spec.batch, 1), TOKENIZER.token_to_id(";"))
    pos = torch.arange(9 * per_line)
    mask = ((pos % 9) == 6) | ((pos % 9) == 7)        # targets that are answer digits (x[0] is the separator)

    def data(i: int, generator=None):
        rng = np.random.default_rng([spec.seed, int(i)])
        shapes = rng.choice(3, size=(spec.batch, per_line), p=mix)
        rows = np.empty_like(shapes)
        for s in range(3):
            hit = shapes == s
            rows[hit] = by_shape[s][rng.integers(len(by_shape[s]), size=int(hit.sum()))]
        x = torch.cat([sep, toks[torch.from_numpy(rows)].reshape(spec.batch, -1)], 1)
        return x[:, :-1], x[:, 1:], mask.expand(spec.batch, -1)

    return data


def _loss(model, batch):
    x, y, m = batch
    return lm_loss(model(x), y, m)


_TOKEN_TABLES = None


def _token_tables() -> tuple[np.ndarray, np.ndarray]:
    """Token ids of every expression of :data:`ALL_PROBLEMS`, in its order: (3000, 6) of ``a+b*c=`` and (3000, 9) of
    the solved ``a+b*c=vv;`` (the tokenizer run once per expression, then looked up)."""
    global _TOKEN_TABLES
    if _TOKEN_TABLES is None:
        _TOKEN_TABLES = (np.array([TOKENIZER.encode(problem_text(*p)) for p in ALL_PROBLEMS], dtype=np.int64),
                         np.array([TOKENIZER.encode(_line(p[None])[1:]) for p in ALL_PROBLEMS], dtype=np.int64))
    return _TOKEN_TABLES


_SEP = TOKENIZER.token_to_id(";")
_PLACE = np.array([1000, 100, 10, 1])       # (shape, a, b, c) -> its row of ALL_PROBLEMS (shape, then a, b, c)


def _rows(problems: np.ndarray, name: str, ndim: int) -> np.ndarray:
    p = np.asarray(problems)
    if p.ndim != ndim or p.shape[-1] != 4 or not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array of shape {('(Q, 4)', '(Q, k, 4)')[ndim - 2]}, got "
                         f"{p.dtype} {p.shape}")
    if not ((p >= 0).all() and (p[..., 0] <= 2).all() and (p[..., 1:] <= 9).all()):
        raise ValueError(f"{name} must be (shape 0-2, digit, digit, digit) rows")
    return p @ _PLACE


def _prompts(problems: np.ndarray, demos: np.ndarray | None = None) -> torch.Tensor:
    """Token ids (Q, L) of ``;<demos>;<problem>=`` (demos (Q, k, 4) solved examples before each query), looked up
    in :func:`_token_tables` (session 15: encoding each prompt's text cost about 27 us a query, a fifth of the
    batched forward pass; the same ids, tested against the text's)."""
    plain, solved = _token_tables()
    rows = _rows(problems, "problems", 2)
    q = len(rows)
    parts = [np.full((q, 1), _SEP, dtype=np.int64)]
    if demos is not None and np.shape(demos)[1:2] != (0,):
        d = _rows(demos, "demos", 3)
        if len(d) != q:
            raise ValueError(f"demos has {len(d)} rows for {q} problems; give one row of demonstrations per problem")
        parts.append(solved[d].reshape(q, d.shape[1] * solved.shape[1]))
    parts.append(plain[rows])
    return torch.from_numpy(np.concatenate(parts, 1))


def _tree_layout(length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Positions and attention mask of one row holding a prompt of ``length`` tokens followed by the ten first
    digits, each digit at position ``length`` and seeing the prompt and itself only (never another digit)."""
    n = length + 10
    pos = torch.cat([torch.arange(length), torch.full((10,), length)])
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    mask[length:, length:] = torch.eye(10, dtype=torch.bool)
    return pos, mask


@torch.no_grad()
def digit_logits(model: GPT, problems: np.ndarray, demos: np.ndarray | None = None, chunk: int = 64
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The model's digit logits for each query: l1 (Q, 10) of the first answer digit and l2 (Q, 10, 10) of the
    second given each first. One forward pass of Q rows, each the prompt followed by the ten first digits placed
    side by side at the answer's first position (tree attention: a digit sees the prompt and itself, so its
    output is the model's prediction of the second digit after that first one; the prompt's last output is the
    first digit's). Equal to decoding the ten continuations one by one (the tests compare with teacher-forced
    scoring); ten times fewer rows than repeating the prompt per first digit. Only the eleven positions read
    (the prompt's last and the ten digits) go through the last layer's queries, MLP and head (``out_positions``:
    the same numbers, about a quarter less arithmetic for a 2-layer model), in chunks of ``chunk`` queries (their
    activations stay in the processor's cache: 64 measured faster than 16, 32, 128 or all 300 at once)."""
    model.eval()
    prompts = _prompts(problems, demos)
    q, length = prompts.shape
    pos, mask = _tree_layout(length)
    read = torch.arange(length - 1, length + 10)
    out1, out2 = [], []
    for s in range(0, q, chunk):
        p = prompts[s:s + chunk]
        x = torch.cat([p, _DIGITS.expand(p.shape[0], -1)], 1)
        logits = model(x, positions=pos, attn_mask=mask, out_positions=read)[:, :, _DIGITS].float()   # (n, 11, 10)
        out1.append(logits[:, 0])
        out2.append(logits[:, 1:])
    return torch.cat(out1).numpy().astype(np.float64), torch.cat(out2).numpy().astype(np.float64)


def answer_logprobs(l1: np.ndarray, l2: np.ndarray, temperature: float) -> np.ndarray:
    """(Q, 100) log-probability of each two-digit answer under digit-wise temperature ``temperature``."""
    a = l1 / temperature
    b = l2 / temperature
    a = a - np.logaddexp.reduce(a, axis=-1, keepdims=True)
    b = b - np.logaddexp.reduce(b, axis=-1, keepdims=True)
    return (a[:, :, None] + b).reshape(len(l1), N_ANSWERS)


@dataclasses.dataclass(frozen=True)
class LMAgentSet:
    """The trained models (state dicts, picklable) with their specs, held-out answer-loss curves (steps, nats),
    training seconds and held-out greedy accuracies."""

    specs: tuple[LMSpec, ...]
    states: tuple[dict, ...]
    curves: tuple[tuple[tuple[int, ...], tuple[float, ...]], ...]
    seconds: tuple[float, ...]
    accuracies: tuple[float, ...]

    def model(self, name: str) -> GPT:
        i = [s.name for s in self.specs].index(name)
        spec = self.specs[i]
        m = GPT(_gpt_config(spec))
        m.load_state_dict(self.states[i])
        m.eval()
        return m

    def accuracy(self, name: str) -> float:
        """Held-out greedy accuracy of model ``name`` at the end of training."""
        return float(self.accuracies[[s.name for s in self.specs].index(name)])

    def plateau(self, margin: float, test: PlateauTest = PlateauTest(), window: int = 3):
        """The plateau test of every model on its held-out answer-loss curve (rule 10): training 50 % longer (read
        back along the curve, each end averaged over ``window`` evaluations) moves the loss by less than
        ``test.share`` of ``margin``. Each end is averaged over ``window`` evaluations only when at least that
        many lie after the earlier horizon (so that the two ends never share an evaluation), else read as is."""
        out = []
        for s, (steps, vals) in zip(self.specs, self.curves):
            later = sum(t > steps[-1] / (1 + test.extend) for t in steps)
            out.append(plateau_from_curve(steps, vals, margin, test, name=f"small LM '{s.name}'",
                                          window=window if later >= window else 1))
        return out


def _gpt_config(spec: LMSpec) -> GPTConfig:
    return GPTConfig(vocab_size=TOKENIZER.vocab_size, n_layer=spec.n_layer, d_model=spec.d_model,
                     n_head=max(1, spec.d_model // 16), max_len=64)


#: held-out probe expressions for the training curves (from the task half: never trained on)
_PROBES = TASK_POOL[np.random.default_rng(7).choice(len(TASK_POOL), 300, replace=False)]


def _probe_loss(model) -> dict:
    """Held-out answer loss (nats per answer digit, teacher forced, zero-shot) on the probe expressions."""
    x = torch.tensor([TOKENIZER.encode(";" + problem_text(*p) + f"{value(*p):02d}") for p in _PROBES])
    logits = model(x[:, :-1])[:, -2:]
    return {"loss": float(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                             x[:, -2:].reshape(-1)))}


def probe_accuracy(model) -> float:
    """Held-out greedy (argmax over the exact answer distribution) accuracy on the probe expressions."""
    l1, l2 = digit_logits(model, _PROBES)
    return float(np.mean(answer_logprobs(l1, l2, 1.0).argmax(1) == VALUES[_index(_PROBES)]))


def _index(problems: np.ndarray) -> np.ndarray:
    p = np.asarray(problems)
    return p[:, 0] * 1000 + p[:, 1] * 100 + p[:, 2] * 10 + p[:, 3]


def train_one(spec: LMSpec) -> tuple[dict, tuple, float, float]:
    """Train one small LM from scratch (AdamW; linear warm-up over the first 5 % of updates, then a half cosine to a
    tenth of the rate; loss on the answer digits); its held-out answer loss
    is logged every ``eval_every`` updates from step 0. Returns (state, (steps, losses), seconds, held-out greedy
    accuracy at the end)."""
    torch.manual_seed(spec.seed)
    model = GPT(_gpt_config(spec))
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=0.0)
    ev = Evaluate(_probe_loss, every=spec.eval_every, at=[spec.steps], at_start=True)
    tr = Trainer(model, opt, _loss, _batch_source(spec),
                 TrainerConfig(steps=spec.steps, schedule=WarmupCosine(max(1, spec.steps // 20), spec.steps, 0.1),
                               grad_clip=1.0, seed=spec.seed, device="cpu", show_progress=False, threads=1),
                 callbacks=[ev])
    tr.run()
    steps, loss = tr.history("loss")
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return state, (tuple(int(s) for s in steps), tuple(float(a) for a in loss)), float(tr.seconds), probe_accuracy(model)


def train_lm_agents(specs: Sequence[LMSpec]) -> LMAgentSet:
    """Train every model of ``specs`` (the producer the chapter caches)."""
    out = [train_one(s) for s in specs]
    return LMAgentSet(tuple(specs), tuple(o[0] for o in out), tuple(o[1] for o in out), tuple(o[2] for o in out),
                      tuple(o[3] for o in out))


# ----------------------------------------------------------------------------------------------- tables
class ArithBank:
    """The queries of one split part and the models, computing each (model, shots, demo rule) digit-logit table
    for all queries at once, on first use (the batched forward pass the benchmark times)."""

    def __init__(self, agents: LMAgentSet, problems: np.ndarray, seed: int):
        self.agents, self.problems, self.seed = agents, np.asarray(problems), int(seed)
        self._models: dict = {}
        self._logits: dict = {}
        self._cdf: dict = {}
        self.forward_rows = 0
        rng = np.random.default_rng([self.seed, 31])
        q = len(self.problems)
        # per query: two random demos and two demos of the query's shape (all from the training half)
        by_shape = [TRAIN_POOL[TRAIN_POOL[:, 0] == s] for s in range(3)]
        self.demos = {"random": TRAIN_POOL[rng.integers(len(TRAIN_POOL), size=(q, 2))],
                      "same-shape": np.stack([by_shape[p[0]][rng.integers(len(by_shape[p[0]]), size=2)]
                                              for p in self.problems]) if q else np.zeros((0, 2, 4), int)}

    def model(self, name: str) -> GPT:
        if name not in self._models:
            self._models[name] = self.agents.model(name)
        return self._models[name]

    def logits(self, name: str, shots: int, demos: str) -> tuple[np.ndarray, np.ndarray]:
        key = (name, int(shots), demos if shots else "-")
        if key not in self._logits:
            d = self.demos[demos][:, :shots] if shots else None
            with torch.inference_mode():
                self._logits[key] = digit_logits(self.model(name), self.problems, d)
            self.forward_rows += len(self.problems)
        return self._logits[key]

    def cdf(self, p: dict, q: int) -> np.ndarray:
        key = (p["model"], p["shots"], p["demos"], p["temperature"])
        if key not in self._cdf:
            l1, l2 = self.logits(p["model"], p["shots"], p["demos"])
            c = np.cumsum(np.exp(answer_logprobs(l1, l2, float(p["temperature"]))), axis=1)
            self._cdf[key] = c / c[:, -1:]
        return self._cdf[key][q]


_UNIFORM_CDF = np.arange(1, N_ANSWERS + 1) / N_ANSWERS


@dataclasses.dataclass(frozen=True, eq=False)
class ArithTable:
    """One arithmetic query, with the attributes the engine reads from a DSL task table: per answer 0..99 the
    checks passed (``vis_hits``, of ``n_visible`` = 2), ``vis_pass``, whether it is right (``hidden_pass``), its
    signature (the answer itself); the query's ``features``; the ranker's score of each answer (``rank_score``:
    its log-probability under the general model, zero-shot, T = 1); and the bank and query index that give an
    LM agent its answer distribution."""

    problem: tuple[int, int, int, int]
    vis_hits: np.ndarray
    vis_pass: np.ndarray
    hidden_pass: np.ndarray
    sig: np.ndarray
    rank_score: np.ndarray
    bank: ArithBank
    q: int
    n_visible: int = N_CHECKS
    family = "arith"

    @property
    def truth(self) -> int:
        return value(*self.problem)

    @property
    def favoured(self) -> set:
        """The specialty the pre-selection controller favours for this query."""
        return {"sums"} if self.problem[0] == 0 else {"products"}

    def cdf(self, p: dict) -> np.ndarray:
        return self.bank.cdf(p, self.q)

    def prior_cdf(self) -> np.ndarray:
        return _UNIFORM_CDF

    def neighbours(self, a: int, edits: str) -> np.ndarray:
        """Answers one edit away from ``a``: a digit substituted; with ``"substitute+delete"`` also ±1; with
        ``"all"`` also the digits swapped."""
        d1, d2 = divmod(int(a), 10)
        out = {10 * x + d2 for x in range(10)} | {10 * d1 + x for x in range(10)}
        if edits != "substitute":
            out |= {(int(a) + 1) % N_ANSWERS, (int(a) - 1) % N_ANSWERS}
        if edits == "all":
            out.add(10 * d2 + d1)
        out.discard(int(a))
        return np.array(sorted(out), dtype=np.int64)

    def text(self) -> str:
        return problem_text(*self.problem)


@dataclasses.dataclass(frozen=True)
class ArithSplit:
    """Validation and test queries of one replicate (disjoint draws from the task half)."""

    val: tuple[ArithTable, ...]
    test: tuple[ArithTable, ...]
    seed: int


def _tables(agents: LMAgentSet, problems: np.ndarray, seed: int) -> tuple[ArithTable, ...]:
    bank = ArithBank(agents, problems, seed)
    l1, l2 = bank.logits("general", 0, "random")
    score = answer_logprobs(l1, l2, 1.0)
    sig = np.arange(N_ANSWERS)
    out = []
    for q, p in enumerate(bank.problems):
        t = value(*p)
        hits = residue_hits(t)
        out.append(ArithTable(tuple(int(v) for v in p), hits, hits == N_CHECKS, sig == t, sig, score[q], bank, q))
    return tuple(out)


def make_arith_split(agents: LMAgentSet, n_val: int, n_test: int, seed: int) -> ArithSplit:
    """Fresh validation and test queries (without replacement from the task half) and their tables."""
    if n_val < 1 or n_test < 1 or n_val + n_test > len(TASK_POOL):
        raise ValueError(f"n_val={n_val}, n_test={n_test}: each must be >= 1 and together <= {len(TASK_POOL)}")
    idx = np.random.default_rng([int(seed), 17]).choice(len(TASK_POOL), n_val + n_test, replace=False)
    probs = TASK_POOL[idx]
    return ArithSplit(_tables(agents, probs[:n_val], seed * 2), _tables(agents, probs[n_val:], seed * 2 + 1), seed)


def agents_digest(agents: LMAgentSet) -> str:
    """A short digest of the trained weights (for the page and the tests' one-seed-one-result check)."""
    h = hashlib.sha256()
    for s in agents.states:
        for k in sorted(s):
            h.update(s[k].numpy().tobytes())
    return h.hexdigest()[:12]
