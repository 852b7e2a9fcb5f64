"""The claims ledger: each of a paper's claims, what we measured, the rule, and the verdict.

A verdict is never written by hand: it is computed from the boolean outcome of the claim's decision
rule evaluated on this run's numbers, or it is "not testable at this profile" with the reason.

    ledger = ClaimsLedger("grokking", profile="default")
    ledger.add("C4", statement="Grokking time scales as 1/(eta*lam)",
               rule="eta*lam*t_gen within ±15% of its mean over a 3x3 grid",
               measured=f"max deviation {dev:.1%}", passed=dev <= 0.15, paper_value="∝ 1/(ηλ)")
"""

from __future__ import annotations

import dataclasses
import html
import json
from typing import Any, Iterator, Literal, get_args

Verdict = Literal["reproduced", "not reproduced", "not testable at this profile"]
VERDICTS: tuple[str, ...] = get_args(Verdict)


def verdict_from(passed: bool | None) -> str:
    """Map a rule's outcome to a verdict (``None`` means the rule could not be evaluated)."""
    if passed is None:
        return VERDICTS[2]
    return VERDICTS[0] if bool(passed) else VERDICTS[1]


@dataclasses.dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    rule: str
    measured: str
    verdict: str
    paper_value: str | None = None
    reason: str | None = None
    timed: bool = False

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class ClaimsLedger:
    """An ordered collection of claims for one chapter and one run."""

    def __init__(self, chapter: str, profile: str | None = None):
        self.chapter = chapter
        self.profile = profile
        self.claims: list[Claim] = []

    def add(self, id: str, *, statement: str, rule: str, measured: str, passed: bool | None,
            paper_value: str | None = None, reason: str | None = None, timed: bool = False) -> Claim:
        """Record a claim. ``passed`` is the rule's outcome on this run; ``None`` = not testable here,
        which needs a ``reason``. A failing claim is kept, with its reason if one is given.

        ``timed=True`` marks a claim decided by wall-clock measurements (a cost or a speed): its numbers,
        unlike every other claim's, are not reproducible to the digit between two runs with one seed,
        and the page says so."""
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim id {id!r} is already in the ledger")
        if passed is not None and not isinstance(passed, bool):
            # numpy booleans are accepted, other types are a bug in the caller
            import numpy as np

            if not isinstance(passed, np.bool_):
                raise TypeError(f"passed must be a bool or None, got {type(passed).__name__}")
            passed = bool(passed)
        if passed is None and not reason:
            raise ValueError(f"claim {id!r} is not testable at this profile: give the reason")
        if timed:
            measured = f"{measured} (wall-clock timing: varies between runs)"
        claim = Claim(id=id, statement=statement, rule=rule, measured=measured,
                      verdict=verdict_from(passed), paper_value=paper_value, reason=reason, timed=bool(timed))
        self.claims.append(claim)
        return claim

    # -- summaries ---------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def as_records(self) -> list[dict]:
        return [c.as_dict() for c in self.claims]

    def to_json(self) -> str:
        return json.dumps({"chapter": self.chapter, "profile": self.profile, "claims": self.as_records()},
                          indent=1)

    def to_markdown(self) -> str:
        rows = ["| id | claim | paper | ours | rule | verdict |", "|---|---|---|---|---|---|"]
        for c in self.claims:
            cells = [c.id, c.statement, c.paper_value or "—", c.measured, c.rule,
                     c.verdict + (f" ({c.reason})" if c.reason else "")]
            rows.append("| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |")
        return "\n".join(rows)

    def _repr_html_(self) -> str:
        return claims_table_html(self.as_records(), caption=f"Claims ledger: {self.chapter}"
                                 + (f" (profile {self.profile})" if self.profile else ""))


_VERDICT_CLASS = {VERDICTS[0]: "verdict-ok", VERDICTS[1]: "verdict-fail", VERDICTS[2]: "verdict-na"}
_VERDICT_STYLE = {VERDICTS[0]: "background:#d6efe0", VERDICTS[1]: "background:#f8d9d4",
                  VERDICTS[2]: "background:#ececec"}


def claims_table_html(records: list[dict], caption: str | None = None, chapter_column: bool = False) -> str:
    """An HTML table of claim records (used by chapters and by the generated scoreboard)."""
    esc = html.escape
    head = (["chapter"] if chapter_column else []) + ["id", "verdict", "claim", "paper", "ours", "rule"]
    out = ['<div class="claims-table-wrap" style="overflow-x:auto">'
           '<table class="claims-table" style="border-collapse:collapse;font-size:0.85em">']
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th style="text-align:left;padding:4px 8px;border-bottom:2px solid #888">{h}</th>' for h in head) + "</tr></thead><tbody>")
    for r in records:
        verdict = r["verdict"]
        td = '<td style="padding:4px 8px;border-bottom:1px solid #ddd;vertical-align:top">{}</td>'
        first = ([r.get("chapter", "")] if chapter_column else []) + [r["id"]]
        rest = [r["statement"], r.get("paper_value") or "—", r["measured"], r["rule"]]
        reason = f'<br><small>{esc(r["reason"])}</small>' if r.get("reason") else ""
        tds = "".join(td.format(esc(str(x))) for x in first)
        tds += (f'<td class="{_VERDICT_CLASS.get(verdict, "")}" style="padding:4px 8px;border-bottom:1px solid #ddd;'
                f'vertical-align:top;min-width:7em;{_VERDICT_STYLE.get(verdict, "")}"><b>{esc(verdict)}</b>{reason}</td>')
        tds += "".join(td.format(esc(str(x))) for x in rest)
        out.append(f"<tr>{tds}</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def claim_sentence(label: str, measured: str, passed: bool | None, rule: str | None = None) -> str:
    """One markdown sentence for the page beside an experiment: what was measured and what the
    claim's rule decides on it (the same verdict the ledger will show)."""
    verdict = verdict_from(passed)
    mark = {VERDICTS[0]: "✓", VERDICTS[1]: "✗", VERDICTS[2]: "–"}[verdict]
    rule_text = f" Rule: {rule}." if rule else ""
    return f"**{label}** — measured: {measured}.{rule_text} {mark} **{verdict}**."


@dataclasses.dataclass(frozen=True)
class ClaimCheck:
    """What a chapter's claim rule returns: ``measured`` (text for the ledger), ``passed`` (True, False, or
    None when the claim cannot be decided at this profile, then with a ``reason``) and the numbers behind
    them (``values``, for figures and tables). Unpacks as ``(measured, passed)``, so
    ``claim_sentence(label, *check, rule=...)`` works."""

    measured: str
    passed: bool | None
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    reason: str | None = None

    def __iter__(self) -> Iterator[Any]:
        yield self.measured
        yield self.passed
