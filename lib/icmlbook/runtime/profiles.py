"""Profiles: one code path, three sizes; and the chapter configs that hold those sizes.

``smoke`` runs a whole chapter in about two minutes on two CPU cores (CI runs it), ``default`` is what
the website shows (at most about fifteen minutes on two cores), ``full`` is the paper's scale where
feasible and is meant for a GPU. A profile changes sizes, never the code path.

How to declare a config
-----------------------
Each chapter declares one frozen config class whose constraints are written **on the fields** (pydantic
v2 dataclasses underneath, strict: a bool is not an int, ``2.0`` is not an int, a string is not a
number, a list is not a tuple, NaN and infinity are not numbers; an int is a fine float, and numpy's
integers and floats are taken as the Python numbers they are), one ``validate`` method for the checks
that involve several fields, and a preset per profile::

    from ..runtime.profiles import (Float, Grid, Int, IntGrid, OneOf, PositiveFloat, Probability,
                                    ProfileConfig, profile_config)

    @profile_config
    class GrokkingConfig(ProfileConfig):
        n: Int(ge=2) = 200                         # an integer >= 2
        k: Int(ge=1) = 20
        eta: PositiveFloat = 0.5                   # a finite real number > 0
        nn_fit_accuracy: Float(gt=0, le=1) = 0.99  # bounds: ge / gt (strict) / le / lt
        drop: Probability = 0.1                    # in [0, 1]
        eta_grid: Grid(gt=0, min_len=2) = (0.125, 0.25)   # a tuple of >= 2 distinct finite numbers > 0
        n_grid: IntGrid(ge=1, unique=False) = (50, 50)    # integers, repeats allowed
        optimizer: OneOf("adamw", "gd") = "adamw"  # or Literal["adamw", "gd"]; OneOf(*TUPLE) for a tuple
        tasks: TupleOf(OneOf("a", "b")) = ("a",)   # a tuple of anything declared this way
        baseline: bool = True

        def validate(self) -> None:                # cross-field checks only; runs after the fields pass
            if not self.k < self.n:
                raise ValueError(f"k={self.k!r} is not allowed; it must be < n={self.n}")

    PRESETS = {"smoke": GrokkingConfig(n=100), "default": GrokkingConfig(), "full": ...}
    cfg = GrokkingConfig.for_profile("smoke", PRESETS, n=120)    # or dataclasses.replace(cfg, n=120)

The field types are ordinary ``typing.Annotated`` types, so any pydantic constraint works as well
(``Annotated[int, Field(ge=2, le=9)]``); the helpers above just spell the common shapes. A bad value
raises :class:`ConfigError` (a ``ValueError``) whose message starts with ``name=value`` and says in plain
words what is allowed, e.g. ``eta=0.0 is not allowed; eta must be a finite real number > 0``; every bad
field is reported (one line each), the cross-field checks only once the fields are valid. Defaults
are validated too. ``dataclasses.replace``, ``dataclasses.fields``, ``as_dict()`` and pickling work as
for any frozen dataclass.

A subclass of :class:`ProfileConfig` that is not declared with ``@profile_config`` (a plain
``dataclasses.dataclass``) refuses to be built: its constraints would go unchecked.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import types
import typing
from typing import Annotated, Any, Literal, Mapping, TypeVar, get_args, get_origin

import annotated_types
import pydantic
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, ValidationError

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


class ConfigError(ValueError):
    """A config parameter has a value outside what is allowed; the message names it and the allowed values."""


@dataclasses.dataclass(frozen=True)
class ProfileConfig:
    """Base class for a chapter's frozen, validated configuration; declare subclasses with
    :func:`profile_config` (see the module docstring)."""

    def __post_init__(self) -> None:
        if "__pydantic_fields__" not in type(self).__dict__:
            raise TypeError(f"{type(self).__name__} must be declared with @profile_config (icmlbook.runtime.profiles), "
                            "so that the constraints on its fields are checked")
        self.validate()

    def validate(self) -> None:  # overridden by chapters
        """The checks that involve several fields; raise ValueError naming the parameter and what is allowed."""

    @classmethod
    def for_profile(cls: type[T], profile: str, presets: Mapping[str, T], **overrides: Any) -> T:
        """The preset for ``profile`` with ``overrides`` applied (each one validated)."""
        check_profile(profile)
        missing = [p for p in PROFILES if p not in presets]
        if missing:
            raise ConfigError(f"{cls.__name__} has no preset for profile(s) {missing}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise ConfigError(
                f"unknown parameter(s) {unknown} for {cls.__name__}; allowed: {', '.join(sorted(names))}"
            )
        return dataclasses.replace(presets[profile], **overrides)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# -- declarative configs (pydantic dataclasses) -------------------------------------------------------
#: the pydantic settings of every chapter config: strict types, no unknown fields, finite numbers, defaults checked
CONFIG_SETTINGS = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, validate_default=True,
                             arbitrary_types_allowed=True)


def _bounds(ge=None, gt=None, le=None, lt=None) -> dict[str, Any]:
    return {k: v for k, v in {"ge": ge, "gt": gt, "le": le, "lt": lt}.items() if v is not None}


def _plain_int(value: Any) -> Any:
    """numpy's integers (``np.int64(3)``, what ``np.arange`` yields) as Python ints; everything else untouched."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, int)):
        return int(value)
    return value


def Int(*, ge: int | None = None, gt: int | None = None, le: int | None = None, lt: int | None = None) -> Any:
    """An integer within the bounds: ``ge``/``gt`` lower (non-strict/strict), ``le``/``lt`` upper. Never a
    bool, a float (not even ``2.0``) or a string; a numpy integer is taken as the int it is."""
    return Annotated[int, BeforeValidator(_plain_int), Field(strict=True, **_bounds(ge, gt, le, lt))]


def Float(*, ge: float | None = None, gt: float | None = None, le: float | None = None,
          lt: float | None = None) -> Any:
    """A finite real number (an int is accepted and stored as a float; never a bool or a string) within the bounds."""
    return Annotated[float, Field(strict=True, allow_inf_nan=False, **_bounds(ge, gt, le, lt))]


def IntAtLeast(k: int) -> Any:
    """An integer ``>= k``."""
    return Int(ge=k)


PositiveInt = Int(ge=1)
NonNegativeInt = Int(ge=0)
PositiveFloat = Float(gt=0)
NonNegativeFloat = Float(ge=0)
Probability = Float(ge=0, le=1)


def OneOf(*values: Any) -> Any:
    """One of ``values`` (``OneOf(*DISTANCES)`` for a tuple of allowed names); the same as ``Literal[...]``."""
    if not values:
        raise ValueError("OneOf needs at least one allowed value")
    return Literal.__getitem__(values)


def _distinct(values: tuple) -> tuple:
    seen: list = []
    for v in values:
        if v in seen:
            raise ValueError(f"it repeats {v!r}")
        seen.append(v)
    return values


def TupleOf(item: Any, *, min_len: int = 1, max_len: int | None = None, unique: bool = True) -> Any:
    """A tuple (not a list) of at least ``min_len`` entries, each of type ``item``; no repeats unless
    ``unique=False``."""
    meta: list[Any] = [Field(min_length=min_len, **({"max_length": max_len} if max_len is not None else {}))]
    if unique:
        meta.append(AfterValidator(_distinct))
    return Annotated[(tuple[item, ...], *meta)]


def Grid(*, ge: float | None = None, gt: float | None = None, le: float | None = None, lt: float | None = None,
         min_len: int = 1, unique: bool = True, integer: bool = False) -> Any:
    """The grid of a sweep: a tuple of at least ``min_len`` finite numbers (integers with ``integer``), each
    within the bounds, without repeats unless ``unique=False``."""
    entry = Int(ge=ge, gt=gt, le=le, lt=lt) if integer else Float(ge=ge, gt=gt, le=le, lt=lt)
    return TupleOf(entry, min_len=min_len, unique=unique)


def IntGrid(**kwargs: Any) -> Any:
    """:func:`Grid` of integers."""
    return Grid(integer=True, **kwargs)


def _fmt(x: Any) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return repr(int(x)) if abs(x) >= 1 or x == 0 else repr(x)
    return repr(x)


def _constraint_words(meta: list[Any]) -> tuple[str, dict[str, Any]]:
    """(bounds in words, other facts) from a field's pydantic/annotated-types metadata."""
    lo = hi = None
    facts: dict[str, Any] = {}
    for m in meta:
        if isinstance(m, pydantic.fields.FieldInfo):
            w, f = _constraint_words(list(m.metadata))
            facts.update(f)
            if w:
                facts.setdefault("_words", []).append(w)
            continue
        if isinstance(m, annotated_types.Gt):
            lo = (">", m.gt)
        elif isinstance(m, annotated_types.Ge):
            lo = (">=", m.ge)
        elif isinstance(m, annotated_types.Lt):
            hi = ("<", m.lt)
        elif isinstance(m, annotated_types.Le):
            hi = ("<=", m.le)
        elif isinstance(m, annotated_types.MinLen):
            facts["min_len"] = m.min_length
        elif isinstance(m, annotated_types.MaxLen):
            facts["max_len"] = m.max_length
        elif isinstance(m, AfterValidator) and m.func is _distinct:
            facts["unique"] = True
    if lo and hi:
        words = f"in {'(' if lo[0] == '>' else '['}{_fmt(lo[1])}, {_fmt(hi[1])}{')' if hi[0] == '<' else ']'}"
    elif lo:
        words = f"{lo[0]} {_fmt(lo[1])}"
    elif hi:
        words = f"{hi[0]} {_fmt(hi[1])}"
    else:
        words = ""
    inner = facts.pop("_words", [])
    words = " and ".join(w for w in [words, *inner] if w)
    return words, facts


def describe_type(annotation: Any, metadata: list[Any] | None = None) -> str:
    """What a field declared as ``annotation`` (with pydantic ``metadata``) allows, in plain words."""
    meta = list(metadata or [])
    if get_origin(annotation) is Annotated:
        base, *extra = get_args(annotation)
        return describe_type(base, [*extra, *meta])
    words, facts = _constraint_words(meta)
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is bool:
        text = "True or False"
    elif annotation is int:
        text = "an integer"
    elif annotation is float:
        text = "a finite real number"
    elif annotation is str:
        text = "a string"
    elif annotation is type(None):
        text = "None"
    elif origin is Literal:
        text = ("one of " if len(args) > 1 else "") + ", ".join(map(repr, args))
    elif origin in (typing.Union, types.UnionType):
        return ", or ".join(describe_type(a) for a in args)
    elif annotation is tuple or (origin is tuple and (not args or args[-1] is Ellipsis)):
        n, most = facts.get("min_len", 0), facts.get("max_len")
        count = f"at least {n}" if n > 1 else ("one or more" if n == 1 else "any number of")
        if most is not None:
            count = f"{n} to {most}" if n else f"at most {most}"
        distinct = " distinct" if facts.get("unique") else ""
        item = f", each {describe_type(args[0])}" if args else ""
        return f"a tuple of {count}{distinct} entries{item}" + (f" ({words})" if words else "")
    elif origin is tuple:
        return "a tuple (" + ", ".join(describe_type(a) for a in args) + ")"
    else:
        text = getattr(annotation, "__name__", str(annotation))
    return f"{text} {words}" if words else text


def _field_value(cls: type, name: str, args: tuple, kwargs: dict) -> Any:
    names = [f.name for f in dataclasses.fields(cls)]
    if name in kwargs:
        return kwargs[name]
    if name in names and names.index(name) < len(args):
        return args[names.index(name)]
    field = next((f for f in dataclasses.fields(cls) if f.name == name), None)
    if field is not None and field.default is not dataclasses.MISSING:
        return field.default
    return "<missing>"


def format_config_errors(cls: type, err: ValidationError, args: tuple = (), kwargs: dict | None = None) -> str:
    """pydantic's errors for ``cls(*args, **kwargs)`` as plain sentences, one per bad parameter, each
    ``name=value is not allowed; name must be <what is allowed>[; detail]``."""
    kwargs = kwargs or {}
    fields = getattr(cls, "__pydantic_fields__", {})
    lines: list[str] = []
    seen: set[str] = set()
    for e in err.errors():
        loc = e.get("loc") or ()
        if not loc:  # a cross-field check in validate(): its own message
            msg = e.get("ctx", {}).get("error", e["msg"])
            lines.append(str(msg))
            continue
        name = str(loc[0])
        if name in seen:
            continue
        seen.add(name)
        if e["type"] == "unexpected_keyword_argument":
            lines.append(f"unknown parameter {name!r} for {cls.__name__}; allowed: {', '.join(sorted(fields))}")
            continue
        value = _field_value(cls, name, args, kwargs)
        if e["type"] == "missing_argument":
            lines.append(f"{name} is required for {cls.__name__}")
            continue
        info = fields.get(name)
        allowed = describe_type(info.annotation, info.metadata) if info is not None else "valid"
        details = []
        index = [i for i in loc[1:] if isinstance(i, int)]  # pydantic may add the tag of a union member
        if index:  # an entry of a tuple (``entry 2[0]`` inside a tuple of tuples)
            path = str(index[0]) + "".join(f"[{i}]" for i in index[1:])
            details.append(f"entry {path} is {e.get('input')!r}")
        if e["type"] == "too_short" and len(loc) == 1 and isinstance(value, (tuple, list)):
            details.append(f"it has {len(value)}")
        elif e["type"] in ("value_error", "assertion_error"):
            details.append(str(e["ctx"]["error"]))
        elif e["type"] in ("int_type", "float_type", "bool_type", "string_type", "tuple_type") and len(loc) == 1:
            details.append(f"got {type(value).__name__}")
        lines.append(f"{name}={value!r} is not allowed; {name} must be {allowed}" + "".join(f"; {d}" for d in details))
    return "\n".join(lines) if lines else str(err)


def profile_config(cls: type[T]) -> type[T]:
    """Make ``cls`` (a subclass of :class:`ProfileConfig` with annotated fields) a frozen, strict pydantic
    dataclass whose construction errors are :class:`ConfigError` in plain words. See the module docstring."""
    made = pydantic.dataclasses.dataclass(frozen=True, config=CONFIG_SETTINGS)(cls)
    init = made.__init__

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except ValidationError as err:
            raise ConfigError(format_config_errors(type(self), err, args, kwargs)) from None

    made.__init__ = __init__
    return made
