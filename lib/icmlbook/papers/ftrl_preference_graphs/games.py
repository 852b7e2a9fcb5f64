"""Finite N-player normal-form games as payoff tensors.

A game :math:`\\Gamma=(\\mathcal N,\\{A_i\\},\\{u_i\\})` with :math:`N` players and :math:`n_i` actions
for player :math:`i` is stored as one float64 array ``payoffs`` of shape ``(N, n_1, ..., n_N)``:
``payoffs[i][alpha]`` is :math:`u_i(\\alpha)` for the pure profile :math:`\\alpha`.

Mixed profiles :math:`x=(x_1,\\dots,x_N)\\in X=\\prod_i\\Delta(A_i)` are stored flat, as arrays of
shape ``(B, D)`` with :math:`D=\\sum_i n_i` (a batch of ``B`` profiles; player ``i`` owns the columns
``offsets[i]:offsets[i+1]``). The payoff vector of player :math:`i` is
:math:`v_i(x)=(u_i(a_i;x_{-i}))_{a_i\\in A_i}` with the multilinear extension
:math:`u_i(x)=\\sum_\\alpha u_i(\\alpha)\\prod_j x_{j\\alpha_j}` (section 3.1 of the chapter).

Also here: seeded random generic games (no payoff ties on the edges of the profile cube, with a
minimum gap), the classic games by name, and our counterexamples (:func:`averaging_game`,
:func:`leaky_game`, :func:`chicken_game`; the paper's game was not reachable).
"""

from __future__ import annotations

import dataclasses
import itertools
from functools import cached_property
from typing import Sequence

import numpy as np

Profile = tuple[int, ...]


def _check_payoffs(payoffs) -> np.ndarray:
    arr = np.asarray(payoffs)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"payoffs must be a numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim < 2:
        raise ValueError(f"payoffs must have shape (N, n_1, ..., n_N) with N >= 1; got shape {arr.shape}")
    n_players = arr.shape[0]
    if arr.ndim != n_players + 1:
        raise ValueError(
            f"payoffs has wrong shape {arr.shape}: its first axis says N={n_players} players, so it needs "
            f"N+1={n_players + 1} axes (N, n_1, ..., n_N), not {arr.ndim}")
    if any(n < 1 for n in arr.shape[1:]):
        raise ValueError(f"payoffs has wrong shape {arr.shape}: every player needs at least one action")
    if np.isnan(arr).any():
        raise ValueError(f"payoffs contain NaN at {np.argwhere(np.isnan(arr))[0].tolist()} (index (player, profile...))")
    if not np.isfinite(arr).all():
        raise ValueError("payoffs contain an infinite value")
    return arr


@dataclasses.dataclass(frozen=True, eq=False)
class NormalFormGame:
    """A finite normal-form game.

    Parameters
    ----------
    payoffs : array_like, shape (N, n_1, ..., n_N)
        ``payoffs[i, a_1, ..., a_N]`` is player ``i``'s payoff :math:`u_i(\\alpha)` at the profile
        :math:`\\alpha=(a_1,\\dots,a_N)`. NaN or infinite values and a wrong number of axes raise
        ``ValueError``.
    name : str
        A label for figures.
    action_names : tuple of tuples of str, optional
        Names of each player's actions (default ``"0", "1", ...``).
    """

    payoffs: np.ndarray
    name: str = "game"
    action_names: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        arr = _check_payoffs(self.payoffs)
        arr.setflags(write=False)
        object.__setattr__(self, "payoffs", arr)
        if self.action_names is None:
            names = tuple(tuple(str(a) for a in range(n)) for n in arr.shape[1:])
        else:
            names = tuple(tuple(str(a) for a in acts) for acts in self.action_names)
            if tuple(len(a) for a in names) != arr.shape[1:]:
                raise ValueError(f"action_names has lengths {[len(a) for a in names]}, "
                                 f"the game has action counts {list(arr.shape[1:])}")
        object.__setattr__(self, "action_names", names)

    # -- sizes and profiles --------------------------------------------------------------------
    @property
    def n_players(self) -> int:
        return self.payoffs.shape[0]

    @property
    def shape(self) -> tuple[int, ...]:
        """Action counts :math:`(n_1,\\dots,n_N)`."""
        return tuple(self.payoffs.shape[1:])

    @property
    def n_profiles(self) -> int:
        return int(np.prod(self.shape))

    @property
    def dim(self) -> int:
        """:math:`D=\\sum_i n_i`, the width of a flat mixed profile."""
        return int(sum(self.shape))

    @cached_property
    def offsets(self) -> np.ndarray:
        """Column offsets of the players' blocks in a flat profile, shape (N+1,)."""
        return np.concatenate([[0], np.cumsum(self.shape)]).astype(int)

    def profiles(self) -> list[Profile]:
        """All pure profiles in lexicographic (C) order, the order of ``np.ravel``."""
        return [tuple(int(a) for a in p) for p in itertools.product(*(range(n) for n in self.shape))]

    def profile_index(self, profile: Sequence[int]) -> int:
        self.check_profile(profile)
        return int(np.ravel_multi_index(tuple(profile), self.shape))

    def check_profile(self, profile: Sequence[int]) -> Profile:
        """Return ``profile`` as a tuple, or raise ValueError if it is not a pure profile of this game."""
        try:
            prof = tuple(int(a) for a in profile)
        except TypeError as err:
            raise ValueError(f"{profile!r} is not a pure profile (a tuple of action indices)") from err
        if len(prof) != self.n_players or any(not 0 <= a < n for a, n in zip(prof, self.shape)):
            raise ValueError(f"profile {tuple(profile)} is outside the game: it needs {self.n_players} action "
                             f"indices with 0 <= a_i < n_i, action counts {self.shape}")
        return prof

    def check_set(self, S) -> frozenset[Profile]:
        """Validate a set of pure profiles; every profile must belong to the game."""
        out = frozenset(self.check_profile(p) for p in S)
        return out

    def u(self, player: int, profile: Sequence[int]) -> float:
        """Payoff :math:`u_i(\\alpha)` of ``player`` at a pure profile."""
        return float(self.payoffs[(player, *self.check_profile(profile))])

    # -- mixed profiles ------------------------------------------------------------------------
    def split(self, x: np.ndarray) -> list[np.ndarray]:
        """The players' blocks of a flat profile batch ``x`` (B, D) -> list of (B, n_i) views."""
        return [x[..., self.offsets[i]:self.offsets[i + 1]] for i in range(self.n_players)]

    def vertex(self, profile: Sequence[int]) -> np.ndarray:
        """The flat mixed profile :math:`e_\\alpha` of a pure profile, shape (D,)."""
        prof = self.check_profile(profile)
        out = np.zeros(self.dim)
        for i, a in enumerate(prof):
            out[self.offsets[i] + a] = 1.0
        return out

    def uniform(self) -> np.ndarray:
        """The barycentre of :math:`X`, shape (D,)."""
        return np.concatenate([np.full(n, 1.0 / n) for n in self.shape])

    def joint(self, x: np.ndarray) -> np.ndarray:
        """Product distribution over pure profiles: :math:`x(\\alpha)=\\prod_ix_{i\\alpha_i}`.

        ``x`` (B, D) -> (B, n_1*...*n_N), profiles in C order.
        """
        return joint_distribution(self.split(np.atleast_2d(x)))

    def payoff_vectors(self, x: np.ndarray) -> list[np.ndarray]:
        """:math:`v_i(x)` for every player: ``x`` (B, D) -> list of (B, n_i)."""
        return payoff_field(self.payoffs, self.split(np.atleast_2d(x)))

    def expected_payoffs(self, x: np.ndarray) -> np.ndarray:
        """:math:`u_i(x)` for every player: ``x`` (B, D) -> (B, N)."""
        x = np.atleast_2d(x)
        v = self.payoff_vectors(x)
        return np.stack([(vi * xi).sum(-1) for vi, xi in zip(v, self.split(x))], axis=-1)

    def with_payoffs(self, payoffs, name: str | None = None) -> "NormalFormGame":
        return NormalFormGame(payoffs, name or self.name, self.action_names)

    def __repr__(self) -> str:
        return f"NormalFormGame({self.name!r}, shape={self.shape})"


# -- vectorised payoff field (used by the dynamics) -----------------------------------------------
def joint_distribution(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """Outer product of the players' mixed strategies, flattened.

    ``blocks``: list of (B, n_i) -> (B, prod n_i) in C order (player 1's index varies slowest).
    """
    out = blocks[0]
    for xb in blocks[1:]:
        out = (out[:, :, None] * xb[:, None, :]).reshape(out.shape[0], -1)
    return out


def _others_joint(blocks: Sequence[np.ndarray], i: int) -> np.ndarray:
    others = [b for j, b in enumerate(blocks) if j != i]
    if not others:
        return np.ones((blocks[0].shape[0], 1))
    return joint_distribution(others)


def player_major(payoffs: np.ndarray, batched: bool = False) -> list[np.ndarray]:
    """Each player's payoff tensor with its own axis first, flattened.

    ``payoffs`` (N, n_1..n_N) -> list of (n_i, prod_{j!=i} n_j); with ``batched`` (B, N, n_1..n_N) ->
    list of (B, n_i, prod_{j!=i} n_j).
    """
    lead = 1 if batched else 0
    n_players = payoffs.shape[lead]
    out = []
    for i in range(n_players):
        Ui = payoffs[:, i] if batched else payoffs[i]
        Ui = np.moveaxis(Ui, lead + i, lead)
        n_i = Ui.shape[lead]
        out.append(np.ascontiguousarray(Ui.reshape(*Ui.shape[:lead], n_i, -1)))
    return out


def payoff_field(payoffs: np.ndarray, blocks: Sequence[np.ndarray], major: list[np.ndarray] | None = None,
                 batched: bool = False) -> list[np.ndarray]:
    """The payoff vectors :math:`v_i(x)=(u_i(a;x_{-i}))_a` of a batch of mixed profiles.

    Parameters
    ----------
    payoffs : ndarray, shape (N, n_1..n_N), or (B, N, n_1..n_N) with ``batched=True``
        One game shared by the whole batch, or one game per batch row.
    blocks : list of ndarray, each (B, n_i)
        The players' mixed strategies.
    major : list of ndarray, optional
        Precomputed :func:`player_major` of ``payoffs`` (saves a reshape per call).

    Returns
    -------
    list of ndarray, each (B, n_i)
        :math:`v_i(x)=\\sum_{\\alpha_{-i}}u_i(\\cdot,\\alpha_{-i})\\prod_{j\\ne i}x_{j\\alpha_j}`.
    """
    if major is None:
        major = player_major(payoffs, batched)
    out = []
    for i in range(len(blocks)):
        W = _others_joint(blocks, i)                      # (B, K)
        if batched:
            out.append(np.einsum("bak,bk->ba", major[i], W))   # (B, n_i)
        else:
            out.append(W @ major[i].T)                    # (B, n_i)
    return out


# -- random generic games -------------------------------------------------------------------------
def edge_gaps(game: NormalFormGame) -> np.ndarray:
    """Absolute payoff differences along every edge of the profile cube.

    An edge joins two profiles that differ in one player's action; its gap is that player's payoff
    difference. Returns a 1-D array (one entry per edge).
    """
    gaps = []
    for i, n in enumerate(game.shape):
        Ui = np.moveaxis(game.payoffs[i], i, 0)          # (n_i, ...)
        for a, b in itertools.combinations(range(n), 2):
            gaps.append(np.abs(Ui[a] - Ui[b]).ravel())
    return np.concatenate(gaps) if gaps else np.zeros(0)


def random_game(shape: Sequence[int], rng: np.random.Generator, min_gap: float = 0.1,
                max_tries: int = 10_000, name: str | None = None) -> NormalFormGame:
    """A random generic game: i.i.d. standard normal payoffs, redrawn until every edge gap >= ``min_gap``.

    With ``min_gap > 0`` the preference graph has no ties (every edge of the profile cube is
    oriented), which is the genericity assumption of the subgame result.

    Parameters
    ----------
    shape : sequence of int
        Action counts :math:`(n_1,\\dots,n_N)`, each >= 1.
    rng : numpy Generator
    min_gap : float
        Smallest allowed payoff difference along an edge (0 accepts every draw).
    """
    shape = tuple(int(n) for n in shape)
    if len(shape) < 1 or any(n < 1 for n in shape):
        raise ValueError(f"shape={shape} is not allowed: give at least one player, each with >= 1 action")
    if not min_gap >= 0:
        raise ValueError(f"min_gap={min_gap!r} must be >= 0")
    for _ in range(max_tries):
        U = rng.standard_normal((len(shape), *shape))
        g = NormalFormGame(U, name or f"random {'x'.join(map(str, shape))}")
        gaps = edge_gaps(g)
        if gaps.size == 0 or gaps.min() >= min_gap:
            return g
    raise RuntimeError(f"no game of shape {shape} with edge gaps >= {min_gap} in {max_tries} draws")


# -- the classic games ----------------------------------------------------------------------------
def matching_pennies(scale: float = 1.0) -> NormalFormGame:
    """Player 1 wins ``scale`` if the coins match, player 2 wins if they differ (zero-sum)."""
    A = scale * np.array([[1.0, -1.0], [-1.0, 1.0]])
    return NormalFormGame(np.stack([A, -A]), "matching pennies", (("H", "T"), ("H", "T")))


def rock_paper_scissors() -> NormalFormGame:
    """Win 1, lose -1, tie 0 (zero-sum)."""
    A = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    return NormalFormGame(np.stack([A, -A]), "rock-paper-scissors", (("R", "P", "S"),) * 2)


def shapley_game() -> NormalFormGame:
    """Shapley's 3x3 game (1964): the classic cycle where fictitious play does not converge."""
    A = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    B = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    return NormalFormGame(np.stack([A, B]), "Shapley's game", (("1", "2", "3"),) * 2)


def coordination_game(high: float = 2.0, low: float = 1.0) -> NormalFormGame:
    """Both players get ``high`` at (0,0), ``low`` at (1,1), 0 when they miscoordinate."""
    A = np.array([[high, 0.0], [0.0, low]])
    return NormalFormGame(np.stack([A, A]), "coordination", (("A", "B"), ("A", "B")))


def prisoners_dilemma() -> NormalFormGame:
    """Cooperate (0) / defect (1), payoffs T=5 > R=3 > P=1 > S=0."""
    A = np.array([[3.0, 0.0], [5.0, 1.0]])
    return NormalFormGame(np.stack([A, A.T]), "prisoner's dilemma", (("C", "D"), ("C", "D")))


CLASSIC_GAMES = {
    "matching_pennies": matching_pennies,
    "rock_paper_scissors": rock_paper_scissors,
    "shapley": shapley_game,
    "coordination": coordination_game,
    "prisoners_dilemma": prisoners_dilemma,
}


def classic_game(name: str) -> NormalFormGame:
    """A classic game by name; one of :data:`CLASSIC_GAMES`."""
    if name not in CLASSIC_GAMES:
        raise ValueError(f"name={name!r} is not a classic game; allowed values: {', '.join(CLASSIC_GAMES)}")
    return CLASSIC_GAMES[name]()


# -- the counterexample ---------------------------------------------------------------------------
def leaky_game(G: float) -> NormalFormGame:
    """The chapter's first counterexample: a preferentially stable set whose span is unstable for **every** ``G > 0``.

    (It was once claimed unstable only for G > 3, from an exit rate averaged over the face; the vertex
    (0,0,0) is a split corner: players 2 and 3 both gain by moving into S, their joint move leaves S.)
    Kept as the stability search's regression case. Actions are {0, 1} for each player.

    - Layer :math:`a_3=0`: matching pennies between players 1 and 2 with stakes 2
      (player 1 wants to match).
    - Layer :math:`a_3=1`: :math:`u_1=u_2=1` at :math:`(0,0,1)`, 0 elsewhere.
    - Player 3: 0 in layer 0; :math:`u_3(0,0,1)=G`, :math:`u_3(a_1,a_2,1)=-1` otherwise.

    The set :func:`leaky_set` (the matching-pennies face plus the vertex (0,0,1)) is preferentially
    stable for every ``G > 0``.
    """
    if isinstance(G, bool) or not isinstance(G, (int, float, np.floating, np.integer)) or not np.isfinite(G):
        raise ValueError(f"G={G!r} must be a finite real number")
    if not G > 0:
        raise ValueError(f"G={G!r} is not allowed; it must be > 0 (at G <= 0 player 3's arc into S reverses)")
    U = np.zeros((3, 2, 2, 2))
    for a1, a2 in itertools.product((0, 1), repeat=2):
        U[0, a1, a2, 0] = 2.0 if a1 == a2 else -2.0
        U[1, a1, a2, 0] = -U[0, a1, a2, 0]
        U[2, a1, a2, 1] = float(G) if (a1, a2) == (0, 0) else -1.0
    U[0, 0, 0, 1] = U[1, 0, 0, 1] = 1.0
    return NormalFormGame(U, f"leaky game (G={G:g})")


def leaky_set() -> frozenset[Profile]:
    """The non-product set :math:`S=\\{(a_1,a_2,0)\\}\\cup\\{(0,0,1)\\}` of :func:`leaky_game`."""
    return frozenset({(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)})


# -- the corrected counterexample -----------------------------------------------------------------
def averaging_game(G: float, h: float = -1.0) -> NormalFormGame:
    """Three-player game whose set :func:`averaging_set` is preferentially stable for every ``G > 0``,
    ``h < 0`` (one preference graph), with a span that is unstable for :math:`G+h>2` (our construction): at
    :math:`G+h=2` the averaged exponent vanishes (a neutral span), and below it the search finds the span stable
    (numerically, not proved) with modulus about :math:`d^{|h|/4}` (:func:`.experiments.corner_excursion`).

    Actions {0, 1} for everyone; profiles :math:`(a_1,a_2,a_3)`.

    - Layer :math:`a_3=0`: matching pennies between players 1 and 2, stakes 2 (player 1 wants to
      match); :math:`u_3=0`.
    - Layer :math:`a_3=1`: :math:`u_1=1` at :math:`(0,\\cdot,1)`, 0 at :math:`(1,\\cdot,1)`;
      :math:`u_2(0,0,1)=1`, :math:`u_2(0,1,1)=0`, :math:`u_2(1,0,1)=\\tfrac12`, :math:`u_2(1,1,1)=0`;
      :math:`u_3(0,0,1)=G`, :math:`u_3(0,1,1)=h`, :math:`u_3(1,\\cdot,1)=-1`.

    The outside of :math:`S` is :math:`\\{(1,\\cdot,1)\\}`, so :math:`D_S=x_{1,1}\\,x_{3,1}`; the chapter
    derives every exit rate of the span (the face :math:`a_3=0` and the face :math:`a_1=0`). The
    transverse rate averaged over every matching-pennies orbit is :math:`(G+h-2)/4`.
    """
    for name, val in (("G", G), ("h", h)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.floating, np.integer)) or not np.isfinite(val):
            raise ValueError(f"{name}={val!r} must be a finite real number")
    if not G > 0:
        raise ValueError(f"G={G!r} is not allowed; it must be > 0 (at G <= 0 player 3's arc (0,0,0)->(0,0,1) reverses)")
    if not h < 0:
        raise ValueError(f"h={h!r} is not allowed; it must be < 0 (at h >= 0 the vertex (0,1,0) has two profitable "
                         "exits whose joint profile (1,1,1) leaves S)")
    U = np.zeros((3, 2, 2, 2))
    for a1, a2 in itertools.product((0, 1), repeat=2):
        U[0, a1, a2, 0] = 2.0 if a1 == a2 else -2.0
        U[1, a1, a2, 0] = -U[0, a1, a2, 0]
    U[0, 0, :, 1] = 1.0
    U[1, 0, 0, 1], U[1, 0, 1, 1], U[1, 1, 0, 1], U[1, 1, 1, 1] = 1.0, 0.0, 0.5, 0.0
    U[2, 0, 0, 1], U[2, 0, 1, 1] = float(G), float(h)
    U[2, 1, :, 1] = -1.0
    return NormalFormGame(U, f"averaging game (G={G:g}, h={h:g})")


def averaging_set() -> frozenset[Profile]:
    """:math:`S=\\{(a_1,a_2,0)\\}\\cup\\{(0,0,1),(0,1,1)\\}`: the matching-pennies face and the face :math:`a_1=0`."""
    return frozenset({(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1), (0, 1, 1)})


def chicken_game(gain: float = 1.0) -> NormalFormGame:
    """Two-player anti-coordination: at (0,0) both players gain ``gain`` by switching, (1,0) and (0,1)
    are strict equilibria, at (1,1) both gain 1 by switching back. The set {(0,0),(1,0),(0,1)} is
    preferentially stable and its span (two edges) is unstable: a split corner at (0,0)."""
    if not gain > 0:
        raise ValueError(f"gain={gain!r} must be > 0")
    U1 = np.array([[0.0, 1.0], [float(gain), 0.0]])     # u1(a1, a2)
    return NormalFormGame(np.stack([U1, U1.T]), f"chicken (gain {gain:g})")
