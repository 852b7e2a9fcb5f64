r"""What the boundaries and likelihoods of a trained model say about the genome.

- :func:`boundary_track`: :math:`p_t` and :math:`b_t` of the outer stage along a region, read window by window
  (each window's first position, forced to be a boundary, is marked invalid).
- :func:`phase_counts` / :func:`phase_test`: boundary counts by codon phase inside genes read left to right
  (forward-strand genes), and a :math:`\chi^2` test of independence between phase and boundary.
- :func:`edge_enrichment`: boundary rate within ``w`` nt of start and stop codons over the region's rate.
- :func:`knockout_sites`, :func:`snv_sites`: the zero-shot proxies. A stop cassette ``TAATAATAATAGTGA`` written
  over 15 nt 12 nt after a start codon (coding) or inside an intergenic gap (non-coding); single-nucleotide
  variants in genes, classed synonymous / missense / nonsense by the bacterial genetic code (Biopython's table 11).
  Score = :math:`\log p(\mathrm{WT}) - \log p(\mathrm{variant})` over the whole window, in bits.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from .data import CODON_TABLE, STOPS, Gene, Genome, decode, encode, revcomp

__all__ = ["boundary_track", "phase_counts", "phase_test", "phase_by_gene", "phase_contrast", "edge_enrichment", "window_bits", "knockout_sites",
           "snv_sites", "auroc", "bootstrap_auroc_diff", "CASSETTE", "snv_class", "Sites", "MarkovLM"]

CASSETTE = "TAATAATAATAGTGA"
SNV_CLASSES = ("synonymous", "missense", "nonsense")


@torch.no_grad()
def boundary_track(model, seq: np.ndarray, context: int, batch: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, b, valid)`` (L,) of the outer stage over ``seq`` read in consecutive windows of ``context`` nt."""
    L = len(seq) // context * context
    x = torch.as_tensor(seq[:L].astype(np.int64)).view(-1, context)
    ps, bs = [], []
    for i in range(0, len(x), batch):
        _, stats = model(x[i:i + batch])
        r = stats[0]["routing"]
        ps.append(r.prob.float().cpu())
        bs.append(r.boundary.cpu())
    p = torch.cat(ps).reshape(-1).numpy()
    b = torch.cat(bs).reshape(-1).numpy()
    valid = np.ones(L, bool)
    valid[::context] = False
    return p, b, valid


def phase_counts(b: np.ndarray, valid: np.ndarray, genes: list[Gene]) -> np.ndarray:
    """(3, 2) counts of [boundary, no boundary] at codon phases 0, 1, 2 (the first base of a codon is phase 0)
    over the forward-strand genes inside the track (start and stop codons excluded)."""
    out = np.zeros((3, 2), np.int64)
    L = len(b)
    for g in genes:
        if g.strand != 1 or g.end - 3 > L:
            continue
        t = np.arange(g.begin + 3, g.end - 3)
        t = t[valid[t]]
        ph = (t - g.begin) % 3
        for k in range(3):
            sel = t[ph == k]
            nb = int(b[sel].sum())
            out[k] += (nb, len(sel) - nb)
    return out


def phase_test(counts: np.ndarray) -> dict:
    """Boundary rate per phase, max/min rate ratio and the chi-square test of phase x boundary independence."""
    from scipy.stats import chi2_contingency
    rates = counts[:, 0] / np.maximum(counts.sum(1), 1)
    if counts[:, 0].sum() == 0 or counts[:, 1].sum() == 0:
        return {"rates": rates, "ratio": 1.0, "chi2": 0.0, "p": 1.0, "n": int(counts.sum())}
    chi2, p, _, _ = chi2_contingency(counts)
    ratio = float(rates.max() / max(rates.min(), 1e-12))
    return {"rates": rates, "ratio": ratio, "chi2": float(chi2), "p": float(p), "n": int(counts.sum())}


def _kmer_index(seq: np.ndarray, t: np.ndarray, k: int) -> np.ndarray:
    idx = np.zeros(len(t), int)
    for j in range(k - 1, -1, -1):                                       # x_{t-k+1}, ..., x_t in base 5
        idx = idx * 5 + seq[t - j].astype(int)
    return idx


def phase_by_gene(seq: np.ndarray, b: np.ndarray, valid: np.ndarray, genes: list[Gene], k: int = 2) -> np.ndarray:
    """Per forward-strand gene: observed (G, 3) boundary counts and position counts by codon phase, and the
    boundary counts a **k-mer-composition** router would give, (G, 3): each position weighted by the track-wide
    boundary rate of its k-mer (x_{t-k+1}, ..., x_t); k = 2 the dinucleotide, k = 3 the trinucleotide (codon usage).
    Returns (G, 3, 3): [..., 0] observed boundaries, [..., 1] positions, [..., 2] composition-predicted boundaries."""
    if k < 1:
        raise ValueError(f"k={k} is not allowed; the composition order must be >= 1")
    L = len(b)
    t = np.flatnonzero(valid[k - 1:]) + k - 1
    km = _kmer_index(seq, t, k)
    hits = np.bincount(km, weights=b[t].astype(float), minlength=5 ** k)
    tot = np.bincount(km, minlength=5 ** k)
    rate = hits / np.maximum(tot, 1)
    rows = []
    for g in genes:
        if g.strand != 1 or g.end - 3 > L:
            continue
        tt = np.arange(max(g.begin + 3, k - 1), g.end - 3)
        tt = tt[valid[tt]]
        ph = (tt - g.begin) % 3
        r = rate[_kmer_index(seq, tt, k)]
        rows.append([[b[tt[ph == j]].sum(), (ph == j).sum(), r[ph == j].sum()] for j in range(3)])
    return np.array(rows, float).reshape(-1, 3, 3)


def phase_contrast(table: np.ndarray) -> tuple[float, float]:
    """(observed, composition-predicted) max/min ratio of the phase boundary rates of a :func:`phase_by_gene`
    table (summed over its genes)."""
    s = table.sum(0)
    obs = s[:, 0] / np.maximum(s[:, 1], 1)
    pred = s[:, 2] / np.maximum(s[:, 1], 1)
    return float(obs.max() / max(obs.min(), 1e-12)), float(pred.max() / max(pred.min(), 1e-12))


def edge_enrichment(b: np.ndarray, valid: np.ndarray, genes: list[Gene], w: int, n_boot: int, seed: int) -> dict:
    """Boundary rate within ``w`` nt of each start (and stop) codon divided by the rate over the whole track, with a
    bootstrap 95 % interval over genes."""
    L = len(b)
    base = b[valid].mean() if valid.any() else 0.0
    out = {"base": float(base)}
    rng = np.random.default_rng(seed)
    for edge in ("start", "stop"):
        per_gene = []
        for g in genes:
            c = g.start_codon if edge == "start" else g.stop_codon
            lo, hi = c - w, c + 3 + w
            if lo < 0 or hi > L:
                continue
            m = valid[lo:hi]
            if m.sum():
                per_gene.append((b[lo:hi][m].sum(), m.sum()))
        arr = np.array(per_gene, float).reshape(-1, 2)
        if len(arr) == 0 or base == 0:
            out[edge] = {"ratio": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0}
            continue
        ratio = arr[:, 0].sum() / arr[:, 1].sum() / base
        idx = rng.integers(0, len(arr), size=(n_boot, len(arr)))
        boots = arr[idx, 0].sum(1) / arr[idx, 1].sum(1) / base
        lo, hi = np.percentile(boots, [2.5, 97.5])
        out[edge] = {"ratio": float(ratio), "lo": float(lo), "hi": float(hi), "n": int(len(arr))}
    return out


@torch.no_grad()
def window_bits(model, windows: np.ndarray, batch: int = 32) -> np.ndarray:
    """Log-likelihood (bits) of every window (n, W) under ``model``: the sum over positions 1..W-1 of
    log2 p(x_t | x_<t)."""
    out = []
    x = torch.as_tensor(windows.astype(np.int64))
    for i in range(0, len(x), batch):
        xb = x[i:i + batch]
        logits, _ = model(xb[:, :-1])
        lp = torch.log_softmax(logits.float(), -1).gather(-1, xb[:, 1:, None]).squeeze(-1)
        out.append(lp.sum(1) / np.log(2))
    return torch.cat(out).numpy()


def markov_bpn(train: np.ndarray, windows: np.ndarray, order: int, pseudo: float = 0.5) -> float:
    """Held-out bits per nucleotide of an order-``order`` Markov chain (counts of (k-mer, next letter) on ``train``,
    ``pseudo`` added to every count) on ``windows`` (n, W), scored on positions 1..W-1 as the models are: position t
    uses the min(t, order) letters before it (a chain of that lower order, fitted the same way)."""
    if order < 0:
        raise ValueError(f"order={order} is not allowed; a Markov order must be >= 0")
    train = np.asarray(train).astype(np.int64)
    w = np.asarray(windows).astype(np.int64)
    n, W = w.shape
    total, count = 0.0, 0
    for j in range(0, order + 1):
        ctx = np.zeros(len(train) - j, np.int64)
        for i in range(j):
            ctx = ctx * 5 + train[i:len(train) - j + i]
        table = np.bincount(ctx * 5 + train[j:], minlength=5 ** (j + 1)).reshape(5 ** j, 5).astype(float) + pseudo
        logp = np.log2(table / table.sum(1, keepdims=True))
        ts = np.arange(max(j, 1), W) if j == order else np.array([j]) if j >= 1 else np.zeros(0, int)
        if j == 0 and order == 0:
            ts = np.arange(1, W)
        if len(ts) == 0:
            continue
        c = np.zeros((n, len(ts)), np.int64)
        for i in range(j, 0, -1):
            c = c * 5 + w[:, ts - i]
        total -= logp[c, w[:, ts]].sum()
        count += c.size
    return float(total / count)


def bits_by_position(model, windows: np.ndarray, context: int, batch: int = 8) -> dict:
    """Mean bits per nucleotide of ``windows`` (n, W) read whole by ``model``, split at the training length:
    ``within`` averages the predicted positions context/2 <= t < context (inside the training length, with at least
    half of it as left context), ``beyond`` those t >= context (the model reads further back than it ever did in
    training). A model confused by the longer input shows ``beyond`` above ``within``."""
    x = torch.as_tensor(windows.astype(np.int64))
    if x.shape[1] - 1 <= context:
        raise ValueError(f"windows of {x.shape[1]} nt are not longer than context={context} + 1; nothing lies beyond it")
    tot = torch.zeros(x.shape[1] - 1, dtype=torch.float64)
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = x[i:i + batch]
            logits, _ = model(xb[:, :-1])
            lp = torch.log_softmax(logits.float(), -1).gather(-1, xb[:, 1:, None]).squeeze(-1)
            tot += -lp.sum(0).double() / np.log(2)
    per = (tot / len(x)).numpy()
    return {"within": float(per[context // 2:context].mean()), "beyond": float(per[context:].mean()), "n": int(len(x)),
            "length": int(x.shape[1])}


@dataclasses.dataclass
class Sites:
    """Paired windows (n, W): wild type and variant, with a label per site (a class name)."""

    wt: np.ndarray
    variant: np.ndarray
    label: np.ndarray


def _oriented_window(genome: Genome, gene: Gene, center: int, W: int) -> tuple[np.ndarray, int] | None:
    """A window of W nt in the gene's orientation whose position ``W // 2`` is the oriented position of the
    forward-strand coordinate ``center``; None if it leaves the sequence."""
    L = len(genome.seq)
    if gene.strand == 1:
        lo = center - W // 2
        if lo < 0 or lo + W > L:
            return None
        return genome.seq[lo:lo + W].copy(), W // 2
    hi = center + W // 2 + 1                                            # oriented index W//2 <- forward center
    lo = hi - W
    if lo < 0 or hi > L:
        return None
    return revcomp(genome.seq[lo:hi]).copy(), W // 2


def knockout_sites(genome: Genome, n: int, W: int, seed: int) -> Sites:
    """Up to ``n`` coding knockouts (cassette 12 nt after the start codon, gene orientation) and ``n`` intergenic
    placements (cassette inside a forward-strand gap between genes of at least 15 + 2*12 nt), each in a window of W nt
    with the cassette starting at the window's centre."""
    rng = np.random.default_rng(seed)
    cas = encode(CASSETTE)
    wt, var, lab = [], [], []
    genes = list(genome.genes)
    for i in rng.permutation(len(genes)):
        if sum(1 for x in lab if x == "coding") >= n:
            break
        g = genes[i]
        if g.end - g.begin < 15 + 12 + 3 + 3:
            continue
        center = g.begin + 3 + 12 if g.strand == 1 else g.end - 1 - 3 - 12
        w = _oriented_window(genome, g, center, W)
        if w is None:
            continue
        seq, c = w
        mut = seq.copy()
        mut[c:c + 15] = cas
        wt.append(seq), var.append(mut), lab.append("coding")
    covered = np.zeros(len(genome.seq), bool)
    for g in genes:
        covered[g.begin:g.end] = True
    free = np.flatnonzero(~covered)
    # starts s with [s - 12, s + 27) all intergenic
    ok = np.zeros(len(genome.seq), bool)
    ok[free] = True
    run = np.convolve(ok.astype(int), np.ones(39, int), mode="valid") == 39          # window [s, s+39)
    cand = np.flatnonzero(run) + 12
    cand = cand[(cand - W // 2 >= 0) & (cand - W // 2 + W <= len(genome.seq))]
    take = rng.choice(cand, size=min(n, len(cand)), replace=False) if len(cand) else np.zeros(0, int)
    for s in np.sort(take):
        lo = s - W // 2
        seq = genome.seq[lo:lo + W].copy()
        mut = seq.copy()
        mut[W // 2:W // 2 + 15] = cas
        wt.append(seq), var.append(mut), lab.append("intergenic")
    return Sites(np.array(wt, np.uint8).reshape(-1, W), np.array(var, np.uint8).reshape(-1, W), np.array(lab))


def snv_class(codon: str, pos: int, alt: str) -> str:
    """Class of the substitution ``alt`` at position ``pos`` (0..2) of a sense ``codon``."""
    new = codon[:pos] + alt + codon[pos + 1:]
    if new in STOPS:
        return "nonsense"
    return "synonymous" if CODON_TABLE[new] == CODON_TABLE[codon] else "missense"


def snv_sites(genome: Genome, n: int, W: int, seed: int) -> Sites:
    """Up to ``n`` single-nucleotide variants per class (synonymous, missense, nonsense) at random sense codons
    of random genes (not the start codon, not the stop), each centred in a window of W nt in gene orientation."""
    rng = np.random.default_rng(seed)
    wt, var, lab = [], [], []
    counts = {k: 0 for k in SNV_CLASSES}
    genes = list(genome.genes)
    tries = 0
    while min(counts.values()) < n and tries < 200 * n and genes:
        tries += 1
        g = genes[int(rng.integers(len(genes)))]
        n_cod = (g.end - g.begin) // 3
        if n_cod < 4:
            continue
        k = int(rng.integers(1, n_cod - 1))
        pos = int(rng.integers(0, 3))
        oriented_index = 3 * k + pos
        center = g.begin + oriented_index if g.strand == 1 else g.end - 1 - oriented_index
        w = _oriented_window(genome, g, center, W)
        if w is None:
            continue
        seq, c = w
        codon = decode(seq[c - pos:c - pos + 3])
        if codon not in CODON_TABLE:
            continue
        alts = [a for a in "ACGT" if a != codon[pos]]
        alt = alts[int(rng.integers(3))]
        cls = snv_class(codon, pos, alt)
        if counts[cls] >= n:
            continue
        mut = seq.copy()
        mut[c] = "ACGT".index(alt)
        wt.append(seq), var.append(mut), lab.append(cls)
        counts[cls] += 1
    return Sites(np.array(wt, np.uint8).reshape(-1, W), np.array(var, np.uint8).reshape(-1, W), np.array(lab))


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Area under the ROC curve of scores ``pos`` against ``neg`` (Mann–Whitney, ties counted half)."""
    from scipy.stats import mannwhitneyu
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    u = mannwhitneyu(pos, neg, alternative="two-sided").statistic
    return float(u / (len(pos) * len(neg)))


def bootstrap_auroc(pos: np.ndarray, neg: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    vals = [auroc(pos[rng.integers(0, len(pos), len(pos))], neg[rng.integers(0, len(neg), len(neg))])
            for _ in range(n_boot)]
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_auroc_diff(pa: np.ndarray, na: np.ndarray, pb: np.ndarray, nb: np.ndarray, n_boot: int,
                         seed: int) -> tuple[float, float, float]:
    """AUROC(a) - AUROC(b) on the same sites (paired: the same resampled sites for both), with a 95 % interval."""
    rng = np.random.default_rng(seed)
    d = auroc(pa, na) - auroc(pb, nb)
    vals = []
    for _ in range(n_boot):
        ip, ineg = rng.integers(0, len(pa), len(pa)), rng.integers(0, len(na), len(na))
        vals.append(auroc(pa[ip], na[ineg]) - auroc(pb[ip], nb[ineg]))
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return float(d), float(lo), float(hi)


def bootstrap_mean_diff(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    """mean(a) - mean(b) (independent samples) with a bootstrap 95 % interval."""
    rng = np.random.default_rng(seed)
    d = float(a.mean() - b.mean())
    vals = a[rng.integers(0, len(a), (n_boot, len(a)))].mean(1) - b[rng.integers(0, len(b), (n_boot, len(b)))].mean(1)
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return d, float(lo), float(hi)


class MarkovLM(torch.nn.Module):
    """An order-``order`` Markov chain over the five letters (counts of (k-mer, next letter) on ``train`` plus
    ``pseudo``), with the models' interface: ``model(x) -> (logits (B, L, 5), [])``, position t conditioned on the
    min(t, order) letters before it (lower orders fitted the same way). The gene-blind reference of the zero-shot rows
    (second edition of the claims contract, rule 11: a k-mer chain passed the knockout rule with AUROC 0.617)."""

    def __init__(self, train: np.ndarray, order: int = 2, pseudo: float = 0.5):
        super().__init__()
        if order < 0:
            raise ValueError(f"order={order} is not allowed; a Markov order must be >= 0")
        self.order = int(order)
        train = np.asarray(train).astype(np.int64)
        self.tables = []
        for j in range(order + 1):
            ctx = np.zeros(len(train) - j, np.int64)
            for i in range(j):
                ctx = ctx * 5 + train[i:len(train) - j + i]
            t = np.bincount(ctx * 5 + train[j:], minlength=5 ** (j + 1)).reshape(5 ** j, 5).astype(float) + pseudo
            self.tables.append(torch.tensor(np.log(t / t.sum(1, keepdims=True)), dtype=torch.float32))

    def forward(self, x: torch.Tensor):
        """Every position at once: the full-order context code of all t >= order - 1 from ``order`` shifted slices,
        the first order - 1 positions (shorter contexts) one by one (:meth:`forward_loop` is the reference)."""
        B, L = x.shape
        out = torch.empty(B, L, 5)
        k = self.order
        head = min(L, max(k - 1, 0))
        for t in range(head):                  # t < order - 1: the context is the t + 1 letters so far
            c = torch.zeros(B, dtype=torch.long)
            for i in range(t + 1):
                c = c * 5 + x[:, i]
            out[:, t] = self.tables[t + 1][c]
        if L > head:
            if k == 0:
                out[:, head:] = self.tables[0][0]
            else:
                c = torch.zeros(B, L - head, dtype=torch.long)
                for i in range(k):             # position t reads x[t-k+1..t]
                    c = c * 5 + x[:, head - (k - 1) + i:L - (k - 1) + i]
                out[:, head:] = self.tables[k][c]
        return out, []

    def forward_loop(self, x: torch.Tensor):
        """The per-position reference of :meth:`forward`."""
        B, L = x.shape
        out = torch.empty(B, L, 5)
        for t in range(L):                     # the prediction after position t uses x[t-j+1..t], j = min(t+1, order)
            j = min(t + 1, self.order)
            c = torch.zeros(B, dtype=torch.long)
            for i in range(j):
                c = c * 5 + x[:, t - j + 1 + i]
            out[:, t] = self.tables[j][c]
        return out, []
