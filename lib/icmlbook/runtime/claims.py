"""The claims ledger: each of a paper's claims, what we measured, the rule, and the verdict.

A verdict is never written by hand: it is computed from the outcome of the claim's decision rule evaluated on
this run's numbers. Four verdicts (``shared/design/CLAIMS.md``, rule 9):

- *reproduced*: the rule passed;
- *not reproduced*: the run measured evidence **against** the claim (its interval lies on the far side of the
  minimum effect declared before the run);
- *inconclusive at this scale*: the run measured, but cannot tell the claim from its negation; the check names
  which of :data:`INCONCLUSIVE_KINDS` it is (the interval spans both, the compared models had not converged,
  the noise is above the effect) and why (:meth:`ClaimCheck.inconclusive_check`);
- *not testable at this profile*: nothing this profile runs can decide it (a 7B model, a dataset we lack).

The contract (``shared/design/CLAIMS.md``) is a property of the code. Each rule is declared once, in the
chapter's ``claims.py``, with the alternative it must reject::

    @claim_rule("C4", statement="Grokking time scales as 1/(eta*lam).",
                rule="95% CI of the exponent of t_gen in eta*lam contains -1, excludes -0.9 and -1.1",
                rejects="exponent -0.9 or -1.1", paper="t_gen ∝ 1/(ηλ)")
    def claim4(result) -> ClaimCheck: ...

    not_testable("C9", statement=..., paper="19% fewer steps at 1.7B", reason="needs a 1.7B model")
    abstract_sentence("We prove that grokking time scales inversely with eta*lambda.", "C4")

The notebook adds the checks (``ledger.add_checks(claim4(res), ...)``; ``ledger.add_not_testable()``),
and the tests declare, for every testable rule, a case where it returns *reproduced*, one where a
plausible alternative world makes it return *not reproduced*, and the **real output of the nearest trivial
method** (a k-mer Markov chain, a one-shot corrector, the analyser without the ingredient, an abstaining
predictor, chance), on which the rule must not pass (``@claim_case(..., trivial="...")``, rule 11). One test over every
chapter (``tests/test_claims_contract.py``) runs those cases and checks that every row of every executed
ledger comes from a registered rule.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import sys
from typing import Any, Callable, Iterator, Literal, get_args

Verdict = Literal["reproduced", "not reproduced", "inconclusive at this scale", "not testable at this profile"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE = VERDICTS

#: why a measured row is inconclusive (rule 9): each inconclusive check names one of these
INCONCLUSIVE_KINDS: tuple[str, ...] = ("interval spans both", "not converged", "noise above effect")


def _check_kind(kind: str | None) -> str | None:
    if kind is not None and kind not in INCONCLUSIVE_KINDS:
        raise ValueError(f"inconclusive={kind!r} is not allowed; allowed values: {', '.join(INCONCLUSIVE_KINDS)}")
    return kind


def verdict_from(passed: bool | None, inconclusive: str | None = None) -> str:
    """Map a rule's outcome to a verdict: True/False are reproduced / not reproduced; ``None`` is
    *inconclusive at this scale* when ``inconclusive`` names the kind (:data:`INCONCLUSIVE_KINDS`), otherwise
    *not testable at this profile*."""
    _check_kind(inconclusive)
    if passed is None:
        return INCONCLUSIVE if inconclusive else NOT_TESTABLE
    if inconclusive is not None:
        raise ValueError("a decided outcome (passed=True/False) cannot also be inconclusive")
    return REPRODUCED if bool(passed) else NOT_REPRODUCED


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
    #: the alternative world the rule rejects (shown under the rule); None for unregistered rows
    rejects: str | None = None
    #: "<chapter>:<id>" of the registered rule that produced the row; None for rows added by hand
    rule_id: str | None = None
    #: the kind of an inconclusive row (one of INCONCLUSIVE_KINDS); None otherwise
    inconclusive: str | None = None
    #: the row is about our reconstruction of the method (the paper's text was not reached): rule 13
    reconstruction: bool = False

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class ClaimsLedger:
    """An ordered collection of claims for one chapter and one run."""

    def __init__(self, chapter: str, profile: str | None = None):
        self.chapter = chapter
        self.profile = profile
        self.claims: list[Claim] = []

    def add(self, id: str, *, statement: str, rule: str, measured: str, passed: bool | None,
            paper_value: str | None = None, reason: str | None = None, timed: bool = False,
            rejects: str | None = None, rule_id: str | None = None, inconclusive: str | None = None,
            reconstruction: bool = False) -> Claim:
        """Record a claim. ``passed`` is the rule's outcome on this run; ``None`` = inconclusive at this
        scale when ``inconclusive`` names the kind, not testable here otherwise; both need a ``reason``. A
        failing claim is kept, with its reason if one is given.

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
        verdict = verdict_from(passed, inconclusive)
        if passed is None and not reason:
            raise ValueError(f"claim {id!r} is {verdict}: give the reason")
        if timed:
            measured = f"{measured} (wall-clock timing: varies between runs)"
        claim = Claim(id=id, statement=statement, rule=rule, measured=measured,
                      verdict=verdict, paper_value=paper_value, reason=reason, timed=bool(timed),
                      rejects=rejects, rule_id=rule_id, inconclusive=inconclusive,
                      reconstruction=bool(reconstruction))
        self.claims.append(claim)
        return claim

    def add_check(self, check: "ClaimCheck") -> Claim:
        """Add the row of a registered rule's result: statement, rule text, the rejected alternative and
        the paper's value come from the rule's declaration (:func:`claim_rule`), the measurement and the
        outcome from ``check``."""
        if not isinstance(check, ClaimCheck):
            raise TypeError(f"add_check expects a ClaimCheck, got {type(check).__name__}")
        if check.rule_id is None:
            raise ValueError("this ClaimCheck was not produced by a registered rule (@claim_rule); "
                             "declare the rule in the chapter's claims.py")
        rule = rule_for(check.rule_id)
        if rule.chapter != self.chapter:
            raise ValueError(f"rule {check.rule_id!r} belongs to chapter {rule.chapter!r}, not {self.chapter!r}")
        return self.add(rule.id, statement=rule.statement, rule=rule.rule, measured=check.measured,
                        passed=check.passed, paper_value=rule.paper, reason=check.reason, timed=rule.timed,
                        rejects=rule.rejects, rule_id=rule.key, inconclusive=check.inconclusive,
                        reconstruction=rule.reconstruction)

    def add_checks(self, *checks: "ClaimCheck") -> list[Claim]:
        """:meth:`add_check` for each check, in order."""
        return [self.add_check(c) for c in checks]

    def add_not_testable(self, *ids: str) -> list[Claim]:
        """Add the chapter's declared not-testable rows (:func:`not_testable`): the given ids, or every
        one not yet in the ledger, in declaration order."""
        declared = [r for r in rules_for(self.chapter) if r.fn is None]
        if ids:
            by_id = {r.id: r for r in declared}
            unknown = [i for i in ids if i not in by_id]
            if unknown:
                raise ValueError(f"no not-testable row {unknown} declared for {self.chapter!r}; "
                                 f"declared: {sorted(by_id)}")
            declared = [by_id[i] for i in ids]
        present = {c.id for c in self.claims}
        return [self.add_check(r.check()) for r in declared if r.id not in present]

    def unregistered(self) -> list[str]:
        """Ids of rows that did not come from a registered rule (the contract test wants none)."""
        return [c.id for c in self.claims if c.rule_id is None]

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
            rule = c.rule + (f" (rejects: {c.rejects})" if c.rejects else "")
            kind = f"{c.inconclusive}: " if c.inconclusive else ""
            cells = [c.id + (f" {RECONSTRUCTION_MARK}" if c.reconstruction else ""), c.statement,
                     c.paper_value or "—", c.measured, rule,
                     c.verdict + (f" ({kind}{c.reason})" if c.reason else "")]
            rows.append("| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |")
        return "\n".join(rows)

    def _repr_html_(self) -> str:
        return claims_table_html(self.as_records(), caption=f"Claims ledger: {self.chapter}"
                                 + (f" (profile {self.profile})" if self.profile else ""), chapter=self.chapter)


_VERDICT_CLASS = {REPRODUCED: "verdict-ok", NOT_REPRODUCED: "verdict-fail", INCONCLUSIVE: "verdict-inconclusive",
                  NOT_TESTABLE: "verdict-na"}
_VERDICT_STYLE = {REPRODUCED: "background:#d6efe0", NOT_REPRODUCED: "background:#f8d9d4",
                  INCONCLUSIVE: "background:#fbeec8", NOT_TESTABLE: "background:#ececec"}
#: the mark beside the id of a row about our reconstruction of the method (rule 13)
RECONSTRUCTION_MARK = "[our reconstruction]"
#: one symbol per verdict, for sentences and compact summaries
VERDICT_MARK = {REPRODUCED: "✓", NOT_REPRODUCED: "✗", INCONCLUSIVE: "≈", NOT_TESTABLE: "–"}


def claim_anchor(chapter: str, claim_id: str) -> str:
    """The HTML id of a claim's row in a claims table: ``claim-<chapter>-<id>`` (the findings box links to it)."""
    return "claim-" + re.sub(r"[^A-Za-z0-9_-]+", "-", f"{chapter}-{claim_id}")


def ledger_anchor(chapter: str) -> str:
    """The HTML id of a chapter's claims table: ``ledger-<chapter>``."""
    return "ledger-" + re.sub(r"[^A-Za-z0-9_-]+", "-", chapter)


def claims_table_html(records: list[dict], caption: str | None = None, chapter_column: bool = False,
                      chapter: str | None = None) -> str:
    """An HTML table of claim records (used by chapters and by the generated scoreboard). Each row gets the id
    :func:`claim_anchor` of its chapter (the record's ``chapter``, else ``chapter``); with ``chapter`` the table
    gets the id :func:`ledger_anchor`."""
    esc = html.escape
    head = (["chapter"] if chapter_column else []) + ["id", "verdict", "claim", "paper", "ours", "rule"]
    wrap_id = f' id="{ledger_anchor(chapter)}"' if chapter else ""
    out = [f'<div class="claims-table-wrap"{wrap_id} style="overflow-x:auto">'
           '<table class="claims-table" style="border-collapse:collapse;font-size:0.85em">']
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th style="text-align:left;padding:4px 8px;border-bottom:2px solid #888">{h}</th>' for h in head) + "</tr></thead><tbody>")
    for r in records:
        verdict = r["verdict"]
        td = '<td style="padding:4px 8px;border-bottom:1px solid #ddd;vertical-align:top">{}</td>'
        first = ([r.get("chapter", "")] if chapter_column else []) + [r["id"]]
        rest = [r["statement"], r.get("paper_value") or "—", r["measured"]]
        kind = f'{r["inconclusive"]}: ' if r.get("inconclusive") else ""
        reason = f'<br><small>{esc(kind + (r.get("reason") or ""))}</small>' if r.get("reason") or kind else ""
        rejects = (f'<br><small class="claim-rejects"><i>rejects:</i> {esc(r["rejects"])}</small>'
                   if r.get("rejects") else "")
        tds = "".join(td.format(esc(str(x))) for x in first)
        if r.get("reconstruction"):
            tds = tds[: -len("</td>")] + f'<br><small class="claim-reconstruction">{esc(RECONSTRUCTION_MARK)}</small></td>'

        tds += (f'<td class="{_VERDICT_CLASS.get(verdict, "")}" style="padding:4px 8px;border-bottom:1px solid #ddd;'
                f'vertical-align:top;min-width:7em;{_VERDICT_STYLE.get(verdict, "")}"><b>{esc(verdict)}</b>{reason}</td>')
        tds += "".join(td.format(esc(str(x))) for x in rest)
        tds += td.format(esc(str(r["rule"])) + rejects)
        owner = r.get("chapter") or chapter
        row_id = f' id="{claim_anchor(owner, r["id"])}"' if owner else ""
        out.append(f"<tr{row_id}>{tds}</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


#: a ``$...$``/``$$...$$`` math span or a backtick code span: left as written by :func:`md_literal`
_MD_VERBATIM = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+?\$|`+[^`]*?`+)", re.S)


def md_literal(text: str) -> str:
    """``text`` with markdown's emphasis characters (``*``, ``_``) escaped outside math and code spans, so that
    a measured or rule text (a nuclear norm ``‖G‖_*``, a config name ``plateau_margin``) reads as written
    rather than turning into italics on the page. Characters already escaped stay as they are."""
    parts = _MD_VERBATIM.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:                                        # a math or code span
            out.append(part)
        else:
            out.append(re.sub(r"(?<!\\)([*_])", r"\\\1", part))
    return "".join(out)


def claim_sentence(label: str, measured: str, passed: bool | None, rule: str | None = None,
                   inconclusive: str | None = None) -> str:
    """One markdown sentence for the page beside an experiment: what was measured and what the
    claim's rule decides on it (the same verdict the ledger will show). The measured and rule texts are
    taken literally (:func:`md_literal`)."""
    verdict = verdict_from(passed, inconclusive)
    mark = VERDICT_MARK[verdict]
    rule_text = f" Rule: {md_literal(rule)}." if rule else ""
    return f"**{label}** — measured: {md_literal(measured)}.{rule_text} {mark} **{verdict}**."


@dataclasses.dataclass(frozen=True)
class ClaimCheck:
    """What a chapter's claim rule returns: ``measured`` (text for the ledger), ``passed`` (True, False, or
    None when the claim cannot be decided, then with a ``reason``; with ``inconclusive`` naming one of
    :data:`INCONCLUSIVE_KINDS` the row is *inconclusive at this scale*, without it *not testable at this
    profile*) and the numbers behind them (``values``, for figures and tables). Unpacks as
    ``(measured, passed)``, so ``claim_sentence(label, *check, rule=...)`` works."""

    measured: str
    passed: bool | None
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    reason: str | None = None
    #: set by the registry: "<chapter>:<id>" of the rule that produced this check
    rule_id: str | None = None
    #: the kind of an inconclusive outcome (INCONCLUSIVE_KINDS); None for every other verdict
    inconclusive: str | None = None

    def __post_init__(self) -> None:
        _check_kind(self.inconclusive)
        if self.inconclusive is not None and self.passed is not None:
            raise ValueError("an inconclusive check has passed=None")
        if self.inconclusive is not None and not self.reason:
            raise ValueError(f"an inconclusive check ({self.inconclusive}) needs a reason")

    @classmethod
    def inconclusive_check(cls, measured: str, kind: str, reason: str, values: dict[str, Any] | None = None) -> "ClaimCheck":
        """An *inconclusive at this scale* outcome: the run measured ``measured`` but cannot tell the claim
        from its negation, for ``kind`` (one of :data:`INCONCLUSIVE_KINDS`) and ``reason``."""
        return cls(measured=measured, passed=None, values=dict(values or {}), reason=reason, inconclusive=kind)

    def __iter__(self) -> Iterator[Any]:
        yield self.measured
        yield self.passed

    @property
    def verdict(self) -> str:
        return verdict_from(self.passed, self.inconclusive)

    def sentence(self, label: str | None = None) -> str:
        """The page's sentence for this check (:func:`claim_sentence`, with the registered rule's text and
        the alternative it rejects)."""
        if self.rule_id is None:
            raise ValueError("sentence() needs a check produced by a registered rule")
        rule = rule_for(self.rule_id)
        text = rule.rule + (f" (rejects: {rule.rejects})" if rule.rejects else "")
        return claim_sentence(label or f"Claim {rule.id}", self.measured, self.passed, rule=text,
                              inconclusive=self.inconclusive)


# -- the registry ------------------------------------------------------------------------------------
#: what a test world may expect of a rule (a NOT_TESTABLE outcome is never a test world)
CASE_OUTCOMES: tuple[str, ...] = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)


@dataclasses.dataclass(frozen=True)
class ClaimRule:
    """A declared claim of a chapter: its statement, the decision rule in words, the alternative world the
    rule must reject, the paper's own value (or "not reached"), and the function that applies the rule
    (``fn``; None for a row declared not testable at any profile, with ``reason``)."""

    chapter: str
    id: str
    statement: str
    rule: str
    paper: str
    rejects: str | None
    fn: Callable[..., ClaimCheck] | None
    reason: str | None = None
    timed: bool = False
    #: the row is about our reconstruction of the method, not the paper's text (rule 13)
    reconstruction: bool = False

    @property
    def key(self) -> str:
        return f"{self.chapter}:{self.id}"

    @property
    def testable(self) -> bool:
        return self.fn is not None

    def check(self) -> ClaimCheck:
        """The check of a not-testable row."""
        if self.fn is not None:
            raise TypeError(f"rule {self.key} is testable: call its function")
        return ClaimCheck(measured="—", passed=None, reason=self.reason, rule_id=self.key)


@dataclasses.dataclass(frozen=True)
class ClaimCase:
    """A test's world for a rule: ``make()`` returns the rule's ClaimCheck on that world's numbers;
    ``expected`` is the verdict it must give; ``alternative`` names the competing truth (failing cases);
    ``trivial`` names the nearest trivial method whose real output the world is (rule 11)."""

    chapter: str
    id: str
    expected: str
    make: Callable[[], ClaimCheck]
    alternative: str | None = None
    trivial: str | None = None

    @property
    def name(self) -> str:
        return f"{self.chapter}:{self.id}:{self.make.__name__}"


#: every declared rule, by "<chapter>:<id>", in declaration order
RULES: dict[str, ClaimRule] = {}
#: every declared test case, by "<chapter>:<id>"
CASES: dict[str, list[ClaimCase]] = {}
#: the abstract's result sentences of each chapter and the row ids that cover each one
ABSTRACT: dict[str, list[tuple[str, tuple[str, ...]]]] = {}


def _chapter_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["icmlbook", "papers"]:
        return parts[2]
    raise ValueError(f"cannot tell the chapter of module {module!r}: pass chapter=... "
                     "(rules live in lib/icmlbook/papers/<slug>/claims.py)")


def _caller_module(depth: int = 2) -> str:
    return sys._getframe(depth).f_globals.get("__name__", "")


def _register(rule: ClaimRule) -> None:
    old = RULES.get(rule.key)
    if old is not None and (old.fn is None) == (rule.fn is None):
        same = (old.fn is None or (old.fn.__module__, old.fn.__qualname__) == (rule.fn.__module__, rule.fn.__qualname__))
        if not same:
            raise ValueError(f"claim {rule.key} is declared twice ({old.fn.__qualname__} and {rule.fn.__qualname__})")
    elif old is not None:
        raise ValueError(f"claim {rule.key} is declared both as a rule and as not testable")
    RULES[rule.key] = rule  # a module reload re-declares the same rule: keep the newest function


def _text(name: str, value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"claim {key}: {name}= must be a non-empty string, got {value!r}")
    return value.strip()


def claim_rule(id: str, *, statement: str, rule: str, rejects: str, paper: str = "not reached",
               timed: bool = False, reconstruction: bool = False,
               chapter: str | None = None) -> Callable[[Callable[..., ClaimCheck]], Callable[..., ClaimCheck]]:
    """Declare a chapter's claim rule. The decorated function applies the rule to an experiment's result
    and returns a :class:`ClaimCheck`; the wrapper stamps it with the rule's id so that
    :meth:`ClaimsLedger.add_check` can fill in the declared texts.

    ``rejects`` names the plausible alternative the rule must reject ("exponent -0.9"); ``paper`` is the
    paper's own words or number where we read them, "not reached" otherwise; ``timed`` marks a rule that
    decides on wall-clock measurements; ``reconstruction`` marks a row about our reconstruction of the
    method (the paper's text was not reached): its statement must say so, and the page and the
    scoreboard mark it (rule 13)."""

    def decorate(fn: Callable[..., ClaimCheck]) -> Callable[..., ClaimCheck]:
        ch = chapter or _chapter_of(fn.__module__)
        key = f"{ch}:{id}"
        declared = ClaimRule(chapter=ch, id=_text("id", id, key), statement=_text("statement", statement, key),
                             rule=_text("rule", rule, key), paper=_text("paper", paper, key),
                             rejects=_text("rejects", rejects, key), fn=fn, timed=bool(timed),
                             reconstruction=bool(reconstruction))
        if declared.reconstruction and "reconstruction" not in declared.statement.lower():
            raise ValueError(f"claim {key} is about our reconstruction (reconstruction=True): its statement must "
                             "say so (\"our reconstruction of ...\")")

        def wrapper(*args: Any, **kwargs: Any) -> ClaimCheck:
            out = fn(*args, **kwargs)
            if not isinstance(out, ClaimCheck):
                raise TypeError(f"claim rule {key} must return a ClaimCheck, got {type(out).__name__}")
            if out.passed is None and not out.reason:
                raise ValueError(f"claim rule {key} returned passed=None without a reason")
            return dataclasses.replace(out, rule_id=key)

        wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        wrapper.__module__ = fn.__module__
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        wrapper.claim = declared  # type: ignore[attr-defined]
        _register(declared)
        return wrapper

    return decorate


def not_testable(id: str, *, statement: str, reason: str, paper: str = "not reached",
                 chapter: str | None = None) -> ClaimRule:
    """Declare a row that no profile of this book can decide (a 1.7B-parameter result, a dataset we do not
    have), with the reason. ``ledger.add_not_testable()`` adds it."""
    ch = chapter or _chapter_of(_caller_module())
    key = f"{ch}:{id}"
    declared = ClaimRule(chapter=ch, id=_text("id", id, key), statement=_text("statement", statement, key),
                         rule="—", paper=_text("paper", paper, key), rejects=None, fn=None,
                         reason=_text("reason", reason, key))
    _register(declared)
    return declared


def abstract_sentence(sentence: str, *ids: str, chapter: str | None = None) -> None:
    """Record that the abstract's result sentence ``sentence`` is covered by the rows ``ids`` (decided or
    declared not testable). The contract test checks that every named row is declared."""
    ch = chapter or _chapter_of(_caller_module())
    if not ids:
        raise ValueError(f"abstract sentence {sentence[:60]!r}... of {ch}: name the row(s) that cover it")
    entries = ABSTRACT.setdefault(ch, [])
    entry = (_text("sentence", sentence, ch), tuple(ids))
    if entry not in entries:
        entries.append(entry)


def claim_case(chapter: str, id: str, expected: str, *, alternative: str | None = None,
               trivial: str | None = None) -> Callable[[Callable[[], ClaimCheck]], Callable[[], ClaimCheck]]:
    """Declare a test world for rule ``chapter:id``: the decorated function (no arguments) returns the
    rule's ClaimCheck on numbers that world produces. ``expected`` is "reproduced" (the claimed truth, with
    the noise the real run has: rule 12), "not reproduced" (a plausible alternative, named by
    ``alternative``: an exponent of -0.9, a learner that outputs nothing, a reversed ranking; never a NaN or
    a broken input), or "inconclusive at this scale" (a measurement that cannot decide: an unconverged model,
    an interval spanning both sides).

    ``trivial="..."`` declares the world as the **real output of the nearest trivial method** (rule 11),
    named in the string ("order-2 Markov chain", "one-shot corrector", "abstaining predictor"): the test must
    build that method's output for real (at smoke size) and pass it through the rule, and the rule must not
    pass on it: ``expected`` is then "not reproduced" or "inconclusive at this scale"."""
    if expected not in CASE_OUTCOMES:
        raise ValueError(f"expected={expected!r}; allowed values: {', '.join(CASE_OUTCOMES)}")
    if trivial is not None:
        if not (isinstance(trivial, str) and trivial.strip()):
            raise ValueError(f"case of {chapter}:{id}: trivial= must name the trivial method, got {trivial!r}")
        if expected == REPRODUCED:
            raise ValueError(f"case of {chapter}:{id}: the trivial method {trivial!r} must not pass the rule; "
                             f"expected must be {NOT_REPRODUCED!r} or {INCONCLUSIVE!r}")
        alternative = alternative or f"the trivial method: {trivial.strip()}"
    if expected == NOT_REPRODUCED and not (isinstance(alternative, str) and alternative.strip()):
        raise ValueError(f"case of {chapter}:{id} expecting {NOT_REPRODUCED!r}: name the alternative world "
                         "(alternative=...)")

    def decorate(fn: Callable[[], ClaimCheck]) -> Callable[[], ClaimCheck]:
        case = ClaimCase(chapter=chapter, id=id, expected=expected, make=fn, alternative=alternative,
                         trivial=trivial.strip() if trivial else None)
        cases = CASES.setdefault(f"{chapter}:{id}", [])
        cases[:] = [c for c in cases if c.name != case.name] + [case]
        return fn

    return decorate


def rule_for(key: str) -> ClaimRule:
    """The registered rule ``"<chapter>:<id>"``."""
    try:
        return RULES[key]
    except KeyError:
        raise KeyError(f"no registered claim rule {key!r}") from None


def rules_for(chapter: str) -> list[ClaimRule]:
    """The chapter's declared rules, in declaration order (import its claims module first)."""
    return [r for r in RULES.values() if r.chapter == chapter]


def case_problems(rule: ClaimRule, require_trivial: bool = True) -> list[str]:
    """What the contract finds wrong with a rule's test cases (empty when all is well): a reproduced case
    that reproduces, a failing case on a named alternative that gives "not reproduced" (False, not None: an
    undecidable input is not a failing world), and (``require_trivial``) the real output of the nearest
    trivial method, on which the rule does not pass (rule 11). Every declared case must give its verdict."""
    if not rule.testable:
        return [] if rule.reason else [f"{rule.key}: not-testable row without a reason"]
    cases = CASES.get(rule.key, [])
    problems = []
    for expected in (REPRODUCED, NOT_REPRODUCED):
        if not any(c.expected == expected and c.trivial is None for c in cases):
            problems.append(f"{rule.key}: no @claim_case with expected={expected!r}")
    if require_trivial and not any(c.trivial for c in cases):
        problems.append(f"{rule.key}: no @claim_case(..., trivial=...) running the nearest trivial method's real "
                        "output through the rule (CLAIMS.md rule 11)")
    for expected in CASE_OUTCOMES:
        mine = [c for c in cases if c.expected == expected]
        for c in mine:
            out = c.make()
            if not isinstance(out, ClaimCheck):
                problems.append(f"{c.name}: returned {type(out).__name__}, not a ClaimCheck")
                continue
            if out.rule_id != rule.key:
                problems.append(f"{c.name}: its check came from rule {out.rule_id!r}, not {rule.key!r}")
            if out.verdict != expected:
                problems.append(f"{c.name}: expected {expected!r}, the rule said {out.verdict!r} ({out.measured})")
    return problems


def refuse_changed_thresholds(cfg: Any, declared: dict[str, float]) -> None:
    """Rule 5 of the claims contract in code: a chapter's decision thresholds are fixed before the run (its rule
    texts are written from them). Raise a ValueError naming the first field of ``cfg`` whose value differs from
    the ``declared`` one."""
    for name, value in declared.items():
        if getattr(cfg, name) != value:
            raise ValueError(f"{name}={getattr(cfg, name)!r} is not allowed here; the claims' thresholds are fixed "
                             f"before the run ({name}={value!r})")
