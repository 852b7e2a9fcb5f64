"""What the run found, at the top of a chapter: the verdict counts and one line per row of the claims ledger
that answers a result sentence of the paper's abstract (id, verdict, measured value), each linked to its row
in the ledger at the end of the page.

Generated from the ledger, never typed. Two places show it:

- the site: the pipeline's post-processing (:mod:`icmlbook.pipeline.postprocess`) inserts it after the title of
  the executed notebook, from the run record (``record["claims"]`` and ``record["abstract"]``), since the
  verdicts are computed at the end of the notebook;
- live in marimo: the chapter's cell named ``findings``, placed right after the title, renders
  ``run.findings(ledger)``; marimo runs it when the ledger exists (cells form a graph), so it shows first.
"""

from __future__ import annotations

import html
import importlib
from typing import Any, Iterable

from .claims import _VERDICT_CLASS, _VERDICT_STYLE, ABSTRACT, VERDICTS, claim_anchor, ledger_anchor

#: the CSS class the site check looks for on every chapter page
BOX_CLASS = "findings-box"
#: the longest measured value the box shows in full (the ledger row has the rest)
MEASURED_CHARS = 180


def abstract_coverage(chapter: str) -> list[tuple[str, tuple[str, ...]]]:
    """The chapter's abstract sentences and the row ids covering each (the registry's
    :func:`~icmlbook.runtime.claims.abstract_sentence`), importing the chapter's ``claims`` module if needed."""
    if chapter not in ABSTRACT:
        try:
            importlib.import_module(f"icmlbook.papers.{chapter}.claims")
        except ModuleNotFoundError as err:
            if err.name not in (f"icmlbook.papers.{chapter}", f"icmlbook.papers.{chapter}.claims"):
                raise
    return list(ABSTRACT.get(chapter, []))


def verdict_counts(claims: Iterable[dict]) -> dict[str, int]:
    """How many rows have each verdict, every verdict of :data:`VERDICTS` counted apart (zeros included)."""
    rows = list(claims)
    return {v: sum(c.get("verdict") == v for c in rows) for v in VERDICTS}


def _shorten(text: str, limit: int = MEASURED_CHARS) -> str:
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"


def _value(row: dict) -> str:
    """The measured value; for a row with nothing measured (not testable here) the reason instead."""
    measured = str(row.get("measured") or "").strip()
    if measured in ("", "—", "-") and row.get("reason"):
        return f'<span class="findings-reason"><i>{html.escape(_shorten(row["reason"]))}</i></span>'
    return f'<span class="findings-measured">{html.escape(_shorten(measured))}</span>'


def findings_html(chapter: str, claims: list[dict], abstract: Iterable[tuple[str, Iterable[str]]] | None = None,
                  profile: str | None = None, seed: int | None = None) -> str:
    """The box: counts of the four verdicts over the ledger's rows, then one line per row that covers a sentence
    of the abstract (in ledger order; a row named by the abstract but absent from the ledger is listed as
    missing), each linked to ``#claim-<chapter>-<id>``, with its verdict (and an inconclusive row's kind), its
    measured value (the reason where nothing was measured) and, for a row about our reconstruction of the
    method, that flag. ``abstract``
    defaults to the registry's."""
    esc = html.escape
    if abstract is None:
        abstract = abstract_coverage(chapter)
    covers: dict[str, list[str]] = {}
    for sentence, ids in abstract:
        for i in ids:
            covers.setdefault(str(i), []).append(str(sentence))
    counts = verdict_counts(claims)
    chips = []
    for verdict, n in counts.items():
        style = _VERDICT_STYLE.get(verdict, "background:#ececec")
        muted = "" if n else ";opacity:0.55"
        chips.append(f'<span class="findings-count {_VERDICT_CLASS.get(verdict, "")}" data-verdict="{esc(verdict)}" '
                     f'style="display:inline-block;margin:2px 6px 2px 0;padding:1px 7px;border-radius:10px;{style}{muted}">'
                     f'<b>{n}</b> {esc(verdict)}</span>')
    run = ", ".join(x for x in (f"profile {profile}" if profile else "", f"seed {seed}" if seed is not None else "") if x)
    head = (f'<div style="margin-bottom:4px"><b>What this run found</b> '
            f'<span style="color:#555">({len(claims)} claim{"" if len(claims) == 1 else "s"}{"; " + esc(run) if run else ""}; '
            f'<a href="#{ledger_anchor(chapter)}">the claims ledger</a> has every row)</span></div>')
    by_id = {str(c.get("id")): c for c in claims}
    ordered = [c for c in claims if str(c.get("id")) in covers]
    missing = [i for i in covers if i not in by_id]
    items = []
    for c in ordered:
        cid = str(c["id"])
        verdict = c.get("verdict", "")
        recon = (' <span class="findings-reconstruction" title="the row is about our reconstruction of the method, '
                 'not the paper\'s text" style="font-size:0.85em;padding:0 5px;border:1px solid #b7791f;border-radius:4px;'
                 'color:#7b4f12">our reconstruction</span>') if c.get("reconstruction") else ""
        kind = (f' <small class="findings-inconclusive">({esc(str(c["inconclusive"]))})</small>'
                if c.get("inconclusive") else "")
        title = "answers: " + " | ".join(s[:200] for s in covers[cid])
        items.append(
            f'<li class="findings-claim" title="{esc(title)}" style="margin:1px 0">'
            f'<a href="#{claim_anchor(chapter, cid)}"><b>{esc(cid)}</b></a> '
            f'<span class="findings-verdict {_VERDICT_CLASS.get(verdict, "")}" style="padding:0 5px;border-radius:4px;'
            f'{_VERDICT_STYLE.get(verdict, "")}">{esc(verdict)}</span>{kind}{recon} '
            f'{_value(c)}</li>')
    for cid in missing:
        items.append(f'<li class="findings-claim findings-missing" style="margin:1px 0"><b>{esc(cid)}</b> '
                     f'<i>named by the abstract, not in this run\'s ledger</i></li>')
    body = (f'<ul class="findings-abstract" style="margin:4px 0 2px 0;padding-left:1.3em">{"".join(items)}</ul>'
            if items else '<div><i>No row of the ledger is named as covering a sentence of the abstract.</i></div>')
    foot = ('<div style="color:#666;font-size:0.85em">The rows that answer the abstract\'s result sentences '
            '(hover a line for its sentence), decided by this run; generated from the claims ledger at the end of '
            'the page.</div>')
    return (f'<div class="{BOX_CLASS}" data-chapter="{esc(chapter)}" style="border:1px solid #bbb;'
            f'border-left:5px solid #4a6fa5;border-radius:6px;padding:8px 12px;margin:10px 0;background:#f7f9fc;'
            f'font-size:0.9em">{head}<div class="findings-counts">{"".join(chips)}</div>{body}{foot}</div>')


def record_abstract(chapter: str) -> list[dict[str, Any]]:
    """The abstract coverage in the form a run record stores it."""
    return [{"sentence": s, "ids": list(ids)} for s, ids in abstract_coverage(chapter)]


def findings_from_record(record: dict) -> str:
    """The box from a run record (what the site shows): its claims, its stored abstract coverage (the
    registry's when an older record has none), its profile and seed."""
    chapter = record["chapter"]
    stored = record.get("abstract")
    abstract = [(a["sentence"], tuple(a["ids"])) for a in stored] if stored is not None else None
    return findings_html(chapter, record.get("claims", []), abstract, profile=record.get("profile"),
                         seed=record.get("seed"))


class Findings:
    """The box as a notebook output (marimo, Jupyter)."""

    def __init__(self, chapter: str, claims: list[dict], profile: str | None = None, seed: int | None = None):
        self.chapter, self.claims, self.profile, self.seed = chapter, claims, profile, seed

    def _repr_html_(self) -> str:
        return findings_html(self.chapter, self.claims, profile=self.profile, seed=self.seed)
