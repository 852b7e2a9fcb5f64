"""One chapter preamble: the run, the seeds and the chapter's config in one call.

Every chapter opens the same way, right after its literal ``parameters`` cell (papermill injects the profile
and seed into that cell, so it stays as it is)::

    @app.cell
    def parameters():
        profile = "default"
        seed = 0
        robin_path = None            # a chapter's own knobs: fields of its config
        return profile, robin_path, seed

    @app.cell
    def _(open_chapter, profile, robin_path, seed):
        run, cfg = open_chapter("arbg_boltzmann", profile, seed, robin_path=robin_path)
        return cfg, run

and states what produced its numbers with ``mo.md(f"{run.computed_with()}: {cfg.n} samples, ...")``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

from .profiles import ProfileConfig
from .records import Run, start_run
from .seeding import seed_everything


def paper_slugs() -> list[str]:
    """The paper packages under ``icmlbook.papers``, sorted."""
    # by name, not an import statement: the artefact cache keys a package over the book packages it imports,
    # and the runtime's key has no business with the papers' namespace
    papers = importlib.import_module("icmlbook.papers")
    return sorted(m.name for m in pkgutil.iter_modules(papers.__path__) if m.ispkg)


def paper_package(slug: str) -> ModuleType:
    """``icmlbook.papers.<slug>``; an unknown slug raises a ValueError naming it and the packages there are."""
    known = paper_slugs()
    if not isinstance(slug, str) or slug not in known:
        raise ValueError(f"chapter={slug!r} is not a paper package under icmlbook.papers; "
                         f"allowed values: {', '.join(known)}")
    package = importlib.import_module(f"icmlbook.papers.{slug}")
    if not callable(getattr(package, "config_for", None)):
        raise ValueError(f"icmlbook.papers.{slug} has no config_for(profile, **overrides): "
                         "declare the chapter's config (README, 'How to declare a config')")
    return package


def open_chapter(slug: str, profile: str, seed: int, **knobs: Any) -> tuple[Run, ProfileConfig]:
    """Open a chapter's run: ``run, cfg = open_chapter(slug, profile, seed, **knobs)``.

    1. starts the run (:func:`icmlbook.runtime.start_run`: checks ``profile`` and ``seed``, names the allowed
       values of a bad one; live in marimo, ``-- --profile smoke --seed 3`` overrides them);
    2. seeds python, numpy and torch from the run's seed (:func:`icmlbook.runtime.seed_everything`);
    3. builds the chapter's config, ``icmlbook.papers.<slug>.config_for(run.profile, **knobs)``: each knob is a
       field of the config, and a bad or unknown one raises the config's error naming it.
    """
    package = paper_package(slug)
    run = start_run(slug, profile=profile, seed=seed)
    seed_everything(run.seed)
    cfg = package.config_for(run.profile, **knobs)
    return run, cfg
