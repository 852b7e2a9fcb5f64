"""Profiles: one code path, three sizes.

``smoke`` runs a whole chapter in about two minutes on two CPU cores (CI runs it), ``default`` is what
the website shows (at most about fifteen minutes on two cores), ``full`` is the paper's scale where
feasible and is meant for a GPU. A profile changes sizes, never the code path.

Each chapter declares a frozen dataclass of sizes and a preset per profile::

    @dataclass(frozen=True)
    class GrokkingConfig(ProfileConfig):
        n: int = 200
        def validate(self):
            require_int(self, "n", minimum=2)

    PRESETS = {"smoke": GrokkingConfig(n=100), "default": GrokkingConfig(), "full": ...}
    cfg = GrokkingConfig.for_profile("smoke", PRESETS, n=120)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Mapping, TypeVar, get_args

ProfileName = Literal["smoke", "default", "full"]
PROFILES: tuple[str, ...] = get_args(ProfileName)

T = TypeVar("T", bound="ProfileConfig")


def check_profile(profile: Any) -> str:
    """Return ``profile`` if it names a profile, else raise a ValueError naming the allowed values."""
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ValueError(
            f"profile={profile!r} is not a profile; allowed values: {', '.join(PROFILES)}"
        )
    return profile


def check_seed(seed: Any) -> int:
    """Seeds are non-negative integers below 2**32 (what numpy's legacy seeding accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"seed={seed!r} is not allowed; seed must be an integer in [0, 2**32)")
    return seed


def require_int(cfg: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> None:
    """Raise a ValueError naming ``name`` unless ``cfg.name`` is an int within the bounds."""
    value = getattr(cfg, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}={value!r} must be an integer")
    _check_bounds(name, value, minimum, maximum)


def require_float(cfg: Any, name: str, minimum: float | None = None, maximum: float | None = None,
                  strict_minimum: bool = False) -> None:
    """Raise a ValueError naming ``name`` unless ``cfg.name`` is a finite real number within bounds."""
    value = getattr(cfg, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{name}={value!r} must be a real number")
    if strict_minimum and minimum is not None and not value > minimum:
        raise ValueError(f"{name}={value!r} is not allowed; it must be > {minimum}")
    _check_bounds(name, value, None if strict_minimum else minimum, maximum)


def require_choice(cfg: Any, name: str, allowed: tuple[Any, ...]) -> None:
    value = getattr(cfg, name)
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed values: {', '.join(map(str, allowed))}")


def require_grid(cfg: Any, name: str, minimum: float | None = None, maximum: float | None = None, *,
                 strict: bool = False, min_len: int = 1, integer: bool = False, unique: bool = True) -> None:
    """Raise a ValueError naming ``name`` unless ``cfg.name`` is a tuple of at least ``min_len`` finite
    numbers (integers with ``integer``), each ``>= minimum`` (``> minimum`` with ``strict``) and
    ``<= maximum``, without repeats (unless ``unique=False``). Grids of a sweep are such tuples."""
    values = getattr(cfg, name)
    what = "integers" if integer else "real numbers"
    if not isinstance(values, tuple) or len(values) < min_len:
        raise ValueError(f"{name}={values!r} must be a tuple of at least {min_len} {what}")
    kinds = (int,) if integer else (int, float)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, kinds) or v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{name}={values!r}: every entry must be one of the finite {what}")
        if minimum is not None and (v <= minimum if strict else v < minimum):
            raise ValueError(f"{name}={values!r}: every entry must be {'>' if strict else '>='} {minimum}")
        if maximum is not None and v > maximum:
            raise ValueError(f"{name}={values!r}: every entry must be <= {maximum}")
    if unique and len(set(values)) != len(values):
        raise ValueError(f"{name}={values!r} must not repeat a value")


def _check_bounds(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={value!r} is not allowed; it must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value!r} is not allowed; it must be <= {maximum}")


@dataclasses.dataclass(frozen=True)
class ProfileConfig:
    """Base class for a chapter's frozen, validated configuration."""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:  # overridden by chapters
        """Check every field; raise ValueError naming the bad parameter and what is allowed."""

    @classmethod
    def for_profile(cls: type[T], profile: str, presets: Mapping[str, T], **overrides: Any) -> T:
        """The preset for ``profile`` with ``overrides`` applied (each one validated)."""
        check_profile(profile)
        missing = [p for p in PROFILES if p not in presets]
        if missing:
            raise ValueError(f"{cls.__name__} has no preset for profile(s) {missing}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {unknown} for {cls.__name__}; allowed: {', '.join(sorted(names))}"
            )
        return dataclasses.replace(presets[profile], **overrides)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
