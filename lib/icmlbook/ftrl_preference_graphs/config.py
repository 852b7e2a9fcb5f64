"""Sizes of the chapter's studies, one preset per profile (a profile changes sizes, never code)."""

from __future__ import annotations

import dataclasses

from icmlbook.runtime import ProfileConfig, require_float, require_grid, require_int

Shape = tuple[int, ...]


def _require_shapes(cfg, name: str) -> None:
    shapes = getattr(cfg, name)
    ok = isinstance(shapes, tuple) and len(shapes) > 0 and all(
        isinstance(s, tuple) and len(s) >= 2 and all(isinstance(n, int) and 2 <= n <= 4 for n in s)
        and _prod(s) <= 16 for s in shapes)
    if not ok:
        raise ValueError(f"{name}={shapes!r} must be a non-empty tuple of game shapes such as ((3, 3), (2, 2, 2)): "
                         "at least 2 players, 2..4 actions each, at most 16 profiles")


def _prod(s) -> int:
    out = 1
    for n in s:
        out *= n
    return out


@dataclasses.dataclass(frozen=True)
class PreferenceConfig(ProfileConfig):
    """Sizes of every study of the ``ftrl_preference_graphs`` chapter.

    Random games draw i.i.d. standard normal payoffs and are redrawn until every edge of the profile
    cube has a payoff gap >= ``min_gap`` (generic games, no ties).
    """

    min_gap: float = 0.15
    # claim 1 and 2: limit sets of exponential weights from interior starts
    r1_shapes: tuple[Shape, ...] = ((3, 3), (2, 2, 2))
    r1_games: int = 60            # per shape
    r1_starts: int = 48           # per game
    r1_horizon: float = 400.0
    r1_tol: float = 1e-6          # a vertex within this sup-distance of the late trajectory is in its skeleton
    r1_tol_dossier: float = 1e-3  # the dossier's tolerance, reported for comparison
    # claims 3 and 7: every product set of random games, perturbed from its span
    r2_shapes: tuple[Shape, ...] = ((3, 3), (2, 2, 2), (2, 2, 3))
    r2_games: int = 40            # per shape, entropic regulariser
    r2_games_euclidean: int = 20  # per shape, Euclidean regulariser
    r2_horizon: float = 200.0
    deltas: tuple[float, ...] = (1e-2, 1e-6, 1e-10)
    n_face: int = 3
    n_generic: int = 2
    max_vertex: int = 64
    club_games: int = 10          # per shape: games on which the independent club test is run
    # claims 4 and 5: the three-player counterexample
    cx_G: tuple[float, ...] = (0.5, 1.0, 2.0, 2.5, 2.8, 2.9, 3.1, 3.2, 3.5, 4.0, 5.0, 6.0, 7.0)
    cx_deltas: tuple[float, ...] = (1e-2, 1e-4, 1e-8, 1e-12, 1e-16)
    cx_fit_G: tuple[float, ...] = (4.0, 5.0, 7.0)
    cx_horizon: float = 1000.0
    cx_face_starts: int = 3
    # claim 6: leaklessness on random non-product preferentially stable sets
    leak_shapes: tuple[Shape, ...] = ((2, 2, 2), (2, 2, 3))
    leak_games: int = 40          # per shape
    leak_sets_per_game: int = 6
    control_sets_per_game: int = 2   # random non-preferentially-stable sets (checks of the first result)
    leak_horizon: float = 300.0
    leak_l3_horizon: float = 120.0

    def validate(self) -> None:
        require_float(self, "min_gap", minimum=0.0, maximum=1.0, strict_minimum=True)
        for name in ("r1_shapes", "r2_shapes", "leak_shapes"):
            _require_shapes(self, name)
        for name in ("r1_games", "r1_starts", "r2_games", "leak_games", "leak_sets_per_game", "cx_face_starts"):
            require_int(self, name, minimum=1, maximum=10_000)
        for name in ("r2_games_euclidean", "club_games", "n_face", "n_generic", "max_vertex", "control_sets_per_game"):
            require_int(self, name, minimum=0, maximum=10_000)
        for name in ("r1_horizon", "r2_horizon", "cx_horizon", "leak_horizon", "leak_l3_horizon"):
            require_float(self, name, minimum=1.0, maximum=1e5)
        require_float(self, "r1_tol", minimum=0.0, maximum=0.5, strict_minimum=True)
        require_float(self, "r1_tol_dossier", minimum=0.0, maximum=0.5, strict_minimum=True)
        require_grid(self, "deltas", 0.0, 0.5, strict=True, min_len=2)
        require_grid(self, "cx_deltas", 0.0, 0.5, strict=True, min_len=2)
        require_grid(self, "cx_G", 0.0, 1e3, strict=True, min_len=2)
        require_grid(self, "cx_fit_G", 3.0, 1e3, strict=True)


PRESETS = {
    "smoke": PreferenceConfig(
        r1_games=6, r1_starts=16, r1_horizon=300.0,
        r2_shapes=((3, 3), (2, 2, 2)), r2_games=6, r2_games_euclidean=3, club_games=2,
        cx_G=(0.5, 2.5, 3.5, 5.0), cx_deltas=(1e-2, 1e-6, 1e-12), cx_fit_G=(4.0, 5.0),
        cx_horizon=300.0, cx_face_starts=1,
        leak_shapes=((2, 2, 2),), leak_games=8, leak_sets_per_game=3, leak_horizon=250.0),
    "default": PreferenceConfig(),
    "full": PreferenceConfig(
        r1_shapes=((3, 3), (2, 2, 2), (2, 2, 3)), r1_games=300, r1_starts=100,
        r2_shapes=((3, 3), (2, 2, 2), (2, 2, 3), (4, 4), (2, 2, 2, 2)), r2_games=200, r2_games_euclidean=100,
        deltas=(1e-2, 1e-6, 1e-10, 1e-14), club_games=40,
        cx_G=tuple(round(0.25 * k, 2) for k in range(1, 33)), cx_horizon=1500.0, cx_face_starts=6,
        leak_shapes=((2, 2, 2), (2, 2, 3), (2, 2, 2, 2)), leak_games=200, leak_sets_per_game=10),
}


def config_for(profile: str, **overrides) -> PreferenceConfig:
    """The preset of ``profile`` ("smoke", "default" or "full") with ``overrides`` applied."""
    return PreferenceConfig.for_profile(profile, PRESETS, **overrides)
