"""The claims contract (shared/design/CLAIMS.md) as a test over every chapter.

- Every chapter declares its rules in ``lib/icmlbook/papers/<slug>/claims.py`` with ``@claim_rule`` (or
  ``not_testable`` with a reason), and names the rows that cover each result sentence of the abstract
  (``abstract_sentence``).
- Every testable rule is tested both ways: a ``@claim_case`` (in ``tests/papers/test_<slug>.py``) where it
  returns *reproduced*, and one where a named plausible alternative makes it return *not reproduced*; and
  the real output of the nearest trivial method (``trivial="..."``) does not pass it (rules 2 and 11).
- Every row of every executed chapter's ledger comes from a registered rule (checked on the smoke
  build the chapter tests already execute: no extra execution).

A chapter still being brought under the contract is listed in ``PENDING_CHAPTERS``; its slug is removed
in the commit that converts it. A chapter whose rules do not all declare their trivial method yet (the
contract's second edition, issues 28 and 35) is listed in ``PENDING_TRIVIAL``, and leaves it the same way.
Nothing else is exempt.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from icmlbook.runtime import claims as registry

ROOT = Path(__file__).resolve().parents[1]
#: chapters whose ledgers predate the registry (issue 11 / issue 10 convert them, then remove them here)
PENDING_CHAPTERS: set[str] = set()
#: chapters whose rules do not all run the nearest trivial method's real output yet (CLAIMS.md rule 11);
#: the commit that gives every rule of a chapter its trivial case removes the chapter here
PENDING_TRIVIAL: set[str] = set()


def chapter_slugs() -> list[str]:
    return sorted(p.stem for p in (ROOT / "chapters").glob("*.py") if not p.stem.startswith("_"))


def load_chapter(slug: str) -> None:
    """Import the chapter's claims module (declares its rules) and its test module (declares the cases)."""
    if (ROOT / "lib" / "icmlbook" / "papers" / slug / "claims.py").exists():
        importlib.import_module(f"icmlbook.papers.{slug}.claims")
    if (ROOT / "tests" / "papers" / f"test_{slug}.py").exists():
        importlib.import_module(f"tests.papers.test_{slug}")


CONTRACT = [s for s in chapter_slugs() if s not in PENDING_CHAPTERS]
for _slug in CONTRACT:
    load_chapter(_slug)
RULES = [r for r in registry.RULES.values() if r.chapter in CONTRACT]


def test_pending_list_names_real_chapters():
    assert PENDING_CHAPTERS <= set(chapter_slugs()), PENDING_CHAPTERS - set(chapter_slugs())
    assert PENDING_TRIVIAL <= set(chapter_slugs()), PENDING_TRIVIAL - set(chapter_slugs())


@pytest.mark.parametrize("slug", CONTRACT)
def test_chapter_declares_rules_and_abstract_coverage(slug):
    rules = registry.rules_for(slug)
    assert any(r.testable for r in rules), f"{slug} declares no testable @claim_rule in its claims.py"
    sentences = registry.ABSTRACT.get(slug, [])
    assert sentences, f"{slug} names no abstract_sentence(...) (every result sentence of the abstract has a row)"
    declared = {r.id for r in rules}
    for sentence, ids in sentences:
        missing = [i for i in ids if i not in declared]
        assert not missing, f"{slug}: abstract sentence {sentence[:60]!r} is covered by undeclared rows {missing}"


@pytest.mark.parametrize("rule", RULES, ids=[r.key for r in RULES])
def test_rule_is_tested_both_ways(rule):
    assert registry.case_problems(rule, require_trivial=rule.chapter not in PENDING_TRIVIAL) == []


@pytest.mark.parametrize("rule", RULES, ids=[r.key for r in RULES])
def test_reconstruction_rows_say_so(rule):
    """Rule 13: a row about our reconstruction of the method says so in its statement."""
    if rule.reconstruction:
        assert "reconstruction" in rule.statement.lower(), rule.key


@pytest.mark.slow
@pytest.mark.parametrize("slug", CONTRACT)
def test_every_executed_row_comes_from_a_registered_rule(smoke_book, slug):
    rec = smoke_book["records"].get(slug)
    assert rec is not None, f"{slug} has no run record in the smoke build"
    declared = {r.key: r for r in registry.rules_for(slug)}
    for row in rec["claims"]:
        assert row.get("rule_id") in declared, f"{slug} row {row['id']} does not come from a registered rule"
        rule = declared[row["rule_id"]]
        assert (row["statement"], row["rule"], row["rejects"]) == (rule.statement, rule.rule, rule.rejects)
    ids = {row["id"] for row in rec["claims"]}
    for sentence, covering in registry.ABSTRACT.get(slug, []):
        assert set(covering) <= ids, f"{slug}: rows {set(covering) - ids} covering {sentence[:60]!r} are not in the ledger"
