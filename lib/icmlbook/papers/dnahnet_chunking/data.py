r"""DNA for dnaHNet-mini, all offline: the real bacterial sequences that ship inside the ``pyrodigal`` 3.7.1 wheel
(read with :mod:`importlib.resources`, SHA-256 checked), gene calls by pyrodigal itself, and a synthetic genome
whose genes, codon phase and motifs are known exactly.

Nucleotides are coded A=0, C=1, G=2, T=3, N=4 (:func:`encode`); a letter outside ACGTN is an error naming it.
Gene coordinates are 0-based half-open ``[begin, end)`` on the forward strand, ``strand`` +1 or -1 (the start
codon is at ``begin`` on +1 and ends at ``end`` on -1).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import importlib.resources
import io
from typing import Sequence

import numpy as np

__all__ = ["ALPHABET", "encode", "decode", "revcomp", "Gene", "Genome", "read_fasta", "WHEEL_FILES", "PYRODIGAL_VERSION",
           "wheel_genome", "call_genes", "synthetic_genome", "CODON_TABLE", "translate", "STOPS", "check_genes"]

ALPHABET = "ACGTN"
_LUT = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(ALPHABET):
    _LUT[ord(_c)] = _i
    _LUT[ord(_c.lower())] = _i
_COMP = np.array([3, 2, 1, 0, 4], dtype=np.uint8)

#: pyrodigal's version whose wheel ships the sequences below (pinned in pyproject.toml)
PYRODIGAL_VERSION = "3.7.1"
#: file in ``pyrodigal/tests/data`` -> (description, SHA-256 of the gzip file as shipped in the 3.7.1 wheel)
WHEEL_FILES = {
    "GCF_001457455.1_NCTC11397_genomic.fna.gz": (
        "Corynebacterium diphtheriae NCTC11397, complete chromosome",
        "e9f88cc1a5c1f0e10f372df91852e44630cbeb1d424a34566ed159e5e94850b3"),
    "GCF_001457455.1_NCTC11397_genomic_100kb.fna.gz": (
        "its first 100 kb", "3dd2ab7b836c028f5b0023daa5c3b0f04a2d926dcb5dfeb45ece0ddbf24cc677"),
    "MIIJ01000039.fna.gz": (
        "Escherichia coli contig MIIJ01000039", "ec750bb0133970dbdd7263f63d72c21ee5d964ed7336256fbc9c3aa48a53e20f"),
    "KK037166.fna.gz": (
        "Kutzneria sp. scaffold KK037166", "c9473cc41fb723a8b9b5953f4c2365b8f9edb171109ccec3b00fd5de9d164e51"),
    "SRR492066.fna.gz": (
        "metagenomic contigs of run SRR492066", "484e50cf3f0ed0a3d5ea35e224ad1b5f6060c1fbb1e34234aae9963e406d38b7"),
}


def encode(seq: str) -> np.ndarray:
    """``seq`` (letters ACGTN, any case) -> uint8 codes 0..4; other letters raise a ValueError naming them."""
    raw = np.frombuffer(seq.encode("ascii", errors="replace"), dtype=np.uint8)
    codes = _LUT[raw]
    bad = codes == 255
    if bad.any():
        letters = sorted({chr(c) for c in raw[bad]})
        raise ValueError(f"sequence holds letters outside ACGTN: {', '.join(repr(x) for x in letters)} "
                         f"({int(bad.sum())} positions, first at {int(np.argmax(bad))}); allowed: A, C, G, T, N")
    return codes


def decode(codes: np.ndarray) -> str:
    return "".join(ALPHABET[int(c)] for c in codes)


def revcomp(codes: np.ndarray) -> np.ndarray:
    """Reverse complement of coded nucleotides (N stays N)."""
    return _COMP[np.asarray(codes)[::-1]]


@dataclasses.dataclass(frozen=True)
class Gene:
    begin: int
    end: int
    strand: int

    @property
    def start_codon(self) -> int:
        """Forward-strand position of the first base of the start codon's footprint (begin on +1, end - 3 on -1)."""
        return self.begin if self.strand == 1 else self.end - 3

    @property
    def stop_codon(self) -> int:
        return self.end - 3 if self.strand == 1 else self.begin


@dataclasses.dataclass
class Genome:
    """Coded sequence (L,) uint8, its genes, and provenance: name, source, SHA-256 of the source file."""

    name: str
    seq: np.ndarray
    genes: list[Gene]
    source: str
    sha256: str = ""
    motifs: list[int] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return len(self.seq)

    def region(self, lo: int, hi: int) -> Genome:
        """The sub-genome [lo, hi) with the genes that lie wholly inside it (coordinates shifted)."""
        genes = [Gene(g.begin - lo, g.end - lo, g.strand) for g in self.genes if g.begin >= lo and g.end <= hi]
        motifs = [m - lo for m in self.motifs if lo <= m < hi]
        return Genome(f"{self.name}[{lo}:{hi}]", self.seq[lo:hi], genes, self.source, self.sha256, motifs)


def read_fasta(data: bytes | str) -> list[tuple[str, str]]:
    """Records ``(header, sequence)`` of a FASTA text (gzip detected from its magic bytes). An empty or
    unreadable input raises a ValueError."""
    if isinstance(data, str):
        data = data.encode()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as err:
            raise ValueError(f"unreadable gzip FASTA: {err}") from err
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as err:
        raise ValueError(f"unreadable FASTA (not ASCII text): {err}") from err
    records, header, parts = [], None, []
    for line in io.StringIO(text):
        line = line.strip()
        if not line:
            continue
        if line.startswith(">"):
            if header is not None:
                records.append((header, "".join(parts)))
            header, parts = line[1:], []
        elif header is None:
            raise ValueError("unreadable FASTA: sequence text before the first '>' header")
        else:
            parts.append(line)
    if header is not None:
        records.append((header, "".join(parts)))
    if not records or not any(s for _, s in records):
        raise ValueError("empty FASTA: no record with a sequence")
    return records


def _wheel_bytes(name: str) -> bytes:
    if name not in WHEEL_FILES:
        raise ValueError(f"name={name!r} is not allowed; allowed values: {', '.join(WHEEL_FILES)}")
    import pyrodigal
    if pyrodigal.__version__ != PYRODIGAL_VERSION:
        raise RuntimeError(f"pyrodigal {pyrodigal.__version__} is installed; this chapter's data are pinned to "
                           f"the files of pyrodigal {PYRODIGAL_VERSION}")
    return (importlib.resources.files("pyrodigal.tests.data") / name).read_bytes()


def wheel_genome(name: str = "GCF_001457455.1_NCTC11397_genomic.fna.gz", *, record: int = 0) -> Genome:
    """One record of a FASTA file shipped in pyrodigal's wheel, without genes (see :func:`call_genes`); the
    file's SHA-256 is checked against :data:`WHEEL_FILES` where one is recorded."""
    raw = _wheel_bytes(name)
    digest = hashlib.sha256(raw).hexdigest()
    expected = WHEEL_FILES[name][1]
    if digest != expected:
        raise ValueError(f"{name}: SHA-256 {digest} differs from the recorded {expected}")
    header, seq = read_fasta(raw)[record]
    return Genome(header.split()[0], encode(seq), [], f"pyrodigal {PYRODIGAL_VERSION} wheel: tests/data/{name}", digest)


def call_genes(genome: Genome, train_on: Genome | None = None) -> Genome:
    """The genome with pyrodigal's gene calls (single mode, trained on ``train_on`` or on itself; complete
    genes only, partial ones at the edges dropped)."""
    import pyrodigal
    finder = pyrodigal.GeneFinder(meta=False, closed=True)
    finder.train(decode((train_on or genome).seq))
    genes = []
    for g in finder.find_genes(decode(genome.seq)):
        if g.partial_begin or g.partial_end:
            continue
        genes.append(Gene(g.begin - 1, g.end, int(g.strand)))
    return dataclasses.replace(genome, genes=genes)


# -- the genetic code (Biopython's table 11, the bacterial code) -----------------------------------------------
def _codon_table() -> tuple[dict[str, str], tuple[str, ...]]:
    from Bio.Data import CodonTable
    t = CodonTable.unambiguous_dna_by_id[11]
    return dict(t.forward_table), tuple(t.stop_codons)


CODON_TABLE, STOPS = _codon_table()
_AA_CODONS: dict[str, list[str]] = {}
for _cod, _aa in sorted(CODON_TABLE.items()):
    _AA_CODONS.setdefault(_aa, []).append(_cod)
AMINO_ACIDS = "".join(sorted(_AA_CODONS))


def translate(codes: np.ndarray) -> str:
    """Protein of a coded CDS read from its first base (stop codons as '*')."""
    s = decode(codes)
    return "".join(CODON_TABLE.get(s[i:i + 3], "*" if s[i:i + 3] in STOPS else "X") for i in range(0, len(s) - 2, 3))


def check_genes(genome: Genome) -> None:
    """Raise a ValueError for a gene call outside its sequence (or empty / not a whole number of codons)."""
    L = len(genome.seq)
    for g in genome.genes:
        if not (0 <= g.begin < g.end <= L):
            raise ValueError(f"gene call [{g.begin}, {g.end}) on strand {g.strand:+d} lies outside the sequence "
                             f"[0, {L}) of {genome.name}")
        if (g.end - g.begin) % 3:
            raise ValueError(f"gene call [{g.begin}, {g.end}) is not a whole number of codons")
        if g.strand not in (1, -1):
            raise ValueError(f"gene strand {g.strand!r} is not allowed; allowed values: +1, -1")


def _markov_sample(rng: np.random.Generator, n: int, order: int, probs: np.ndarray) -> np.ndarray:
    """n nucleotides from an order-k Markov chain with transition table ``probs`` (4**k, 4)."""
    out = np.empty(n, dtype=np.uint8)
    u = rng.random(n)
    cum = np.cumsum(probs, 1)
    state = 0
    for i in range(n):
        c = int(np.searchsorted(cum[state], u[i] * cum[state, -1]))
        c = min(c, 3)
        out[i] = c
        state = (state * 4 + c) % (4 ** order)
    return out


def synthetic_genome(length: int, seed: int, *, gene_frac: float = 0.7, min_codons: int = 80, max_codons: int = 400,
                     codon_bias: float = 0.3, motif: str = "AGGAGG", motif_gap: int = 8) -> Genome:
    """A toy bacterial genome of ``length`` nt: genes on both strands (ATG, codons drawn from a biased codon
    usage for amino acids drawn from a fixed composition, a stop codon), each preceded (in its own orientation)
    by the planted ``motif`` ``motif_gap`` nt before the start, separated by intergenic DNA from an AT-rich
    order-3 Markov chain. Returns the genome with its genes and the motif positions; ``genome.proteins`` (an
    attribute) holds the planted protein of every gene in order."""
    rng = np.random.default_rng(seed)
    aas = list(AMINO_ACIDS)                                            # the 20 amino acids
    aa_freq = rng.dirichlet(np.full(len(aas), 4.0))
    usage = {a: rng.dirichlet(np.full(len(_AA_CODONS[a]), codon_bias)) for a in aas}
    inter = rng.dirichlet(np.array([3.0, 1.5, 1.5, 3.0]) * 2, size=64)    # AT-rich order-3 chain
    mean_gene = 3 * (min_codons + max_codons) / 2 + 3
    mean_inter = mean_gene * (1 - gene_frac) / gene_frac
    pieces, genes, motifs, proteins = [], [], [], []
    pos = 0
    motif_codes = encode(motif)
    while True:
        gap = int(rng.integers(max(20, int(0.3 * mean_inter)), int(1.7 * mean_inter) + 21))
        n_cod = int(rng.integers(min_codons, max_codons + 1))
        glen = 3 * (n_cod + 2)
        if pos + gap + glen + 40 > length:
            break
        prot = "".join(rng.choice(aas, size=n_cod, p=aa_freq))
        codons = ["ATG"] + [_AA_CODONS[a][rng.choice(len(_AA_CODONS[a]), p=usage[a])] for a in prot] + \
                 [STOPS[int(rng.integers(0, 3))]]
        cds = encode("".join(codons))
        ig = _markov_sample(rng, gap, 3, inter)
        m_at = gap - motif_gap - len(motif_codes)
        ig[m_at:m_at + len(motif_codes)] = motif_codes                    # in gene orientation
        piece = np.concatenate([ig, cds])
        T = len(piece)
        strand = 1 if rng.random() < 0.5 else -1
        if strand == 1:
            pieces.append(piece)
            motifs.append(pos + m_at)
            genes.append(Gene(pos + gap, pos + T, 1))
        else:                                                             # the whole piece reverse-complemented
            pieces.append(revcomp(piece))
            motifs.append(pos + T - m_at - len(motif_codes))
            genes.append(Gene(pos, pos + glen, -1))
        pos += T
        proteins.append(prot)
    pieces.append(_markov_sample(rng, length - pos, 3, inter))
    seq = np.concatenate(pieces)[:length]
    g = Genome(f"synthetic(seed={seed})", seq, genes, "icmlbook.papers.dnahnet_chunking.data.synthetic_genome", "")
    g.motifs = motifs
    g.proteins = proteins  # type: ignore[attr-defined]
    return g


def gene_oriented(genome: Genome, gene: Gene, lo: int, hi: int) -> np.ndarray:
    """Positions [lo, hi) of the forward strand read in ``gene``'s orientation (reverse complement on -1)."""
    s = genome.seq[lo:hi]
    return s if gene.strand == 1 else revcomp(s)


def split_regions(L: int, holdout: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """Train region [0, a) and held-out region [a, L), a = round((1 - holdout) L)."""
    a = int(round((1 - holdout) * L))
    return (0, a), (a, L)


def sample_windows(seq: np.ndarray, n: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random windows (n, length) of ``seq``."""
    for name, value in (("n", n), ("length", length)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (0 if name == "n" else 1):
            raise ValueError(f"{name}={value!r} is not allowed; {name} must be an integer >= {0 if name == 'n' else 1}")
    if len(seq) < length:
        raise ValueError(f"the sequence ({len(seq)} nt) is shorter than the window ({length} nt)")
    starts = rng.integers(0, len(seq) - length + 1, size=n)
    return np.stack([seq[s:s + length] for s in starts])


def tile_windows(seq: np.ndarray, length: int, max_windows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Non-overlapping windows (n, length) covering ``seq`` from its start, and their start positions."""
    n = len(seq) // length
    if max_windows is not None:
        n = min(n, max_windows)
    starts = np.arange(n) * length
    return np.stack([seq[s:s + length] for s in starts]) if n else np.zeros((0, length), np.uint8), starts


def describe_sources(genomes: Sequence[Genome]) -> list[dict]:
    return [{"name": g.name, "length": len(g), "genes": len(g.genes), "source": g.source, "sha256": g.sha256}
            for g in genomes]
