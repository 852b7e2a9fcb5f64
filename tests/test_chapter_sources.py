"""The chapters' sources, read as text (no execution): every notebook opens its run through the one preamble
(``open_chapter``), states its run with ``run.computed_with()`` and shows what the run found (its cell named
``findings``) right after its title."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (ROOT / "chapters").glob("*.py") if not p.stem.startswith("_"))
#: what only the preamble may call (icmlbook.runtime.open_chapter does it, in one place); a chapter may still
#: read another profile's preset for its prose (``config_for("full").epochs``), never build its run's config
BY_HAND = ("start_run", "seed_everything")


def cells(path: Path) -> list[ast.FunctionDef]:
    """The notebook's cells (functions decorated with ``@app.cell``), in file order."""
    tree = ast.parse(path.read_text())
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)
            and any("app.cell" in ast.unparse(d) for d in node.decorator_list)]


def called(node: ast.AST) -> list[str]:
    """Names of the functions called in ``node`` (``f(...)`` and ``x.f(...)``)."""
    out = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            out.append(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return out


def problems(path: Path) -> list[str]:
    """What is wrong with a notebook's preamble (empty when nothing is)."""
    found = []
    body = cells(path)
    for name in BY_HAND:
        if any(name in called(c) for c in body):
            found.append(f"calls {name}() by hand (open_chapter does it)")
    for call in (n for c in body for n in ast.walk(c) if isinstance(n, ast.Call)):
        name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
        if name == "config_for" and not (call.args and isinstance(call.args[0], ast.Constant)):
            found.append(f"builds its config by hand: {ast.unparse(call)} (open_chapter does it)")
    opens = [call for c in body for call in ast.walk(c) if isinstance(call, ast.Call)
             and isinstance(call.func, ast.Name) and call.func.id == "open_chapter"]
    if len(opens) != 1:
        found.append(f"calls open_chapter {len(opens)} times, not once")
    elif not (opens[0].args and isinstance(opens[0].args[0], ast.Constant) and opens[0].args[0].value == path.stem):
        found.append(f"open_chapter's first argument is not the slug {path.stem!r}")
    if [c.name for c in body].count("parameters") != 1:
        found.append("has no single cell named 'parameters' (papermill's)")
    if "computed_with" not in called(ast.Module(body=body, type_ignores=[])):
        found.append("never states its run with run.computed_with()")
    titles = [i for i, c in enumerate(body) if any(isinstance(s, ast.Constant) and isinstance(s.value, str)
                                                     and s.value.lstrip().startswith("# ") for s in ast.walk(c))]
    names = [c.name for c in body]
    if "findings" not in names:
        found.append("has no cell named 'findings' (what the run found, at the top)")
    elif not titles or names.index("findings") != titles[0] + 1:
        found.append("its 'findings' cell is not the cell right after the title")
    else:
        cell = body[names.index("findings")]
        if "findings" not in called(cell) or {a.arg for a in cell.args.args} != {"ledger", "run"}:
            found.append("its 'findings' cell does not show run.findings(ledger)")
    return found


def test_there_are_chapters():
    assert len(CHAPTERS) >= 13


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_opens_with_the_one_preamble(path):
    assert problems(path) == []


def test_the_source_check_can_fail(tmp_path):
    """A notebook that builds its run by hand, states no run and has no findings cell is caught."""
    bad = tmp_path / "grokking.py"
    bad.write_text('''import marimo
app = marimo.App()


@app.cell
def _(mo):
    mo.md(r"""
    # A title
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(gk, profile, seed, seed_everything, start_run):
    run = start_run("grokking", profile=profile, seed=seed)
    seed_everything(run.seed)
    cfg = gk.config_for(run.profile)
    return cfg, run
''')
    found = problems(bad)
    assert any("start_run" in p for p in found) and any("seed_everything" in p for p in found)
    assert any("gk.config_for(run.profile)" in p for p in found) and any("open_chapter 0 times" in p for p in found)
    assert any("computed_with" in p for p in found) and any("no cell named 'findings'" in p for p in found)
    good = ROOT / "chapters" / "grokking.py"
    moved = good.read_text().replace("def findings(ledger, run):", "def _(ledger, run):")
    (tmp_path / "grokking.py").write_text(moved)
    assert any("findings" in p for p in problems(tmp_path / "grokking.py"))


# -- issue 27 §3: a rule's intervals come from icmlbook.runtime.stats -------------------------------------------
CLAIMS_FILES = sorted((ROOT / "lib" / "icmlbook" / "papers").glob("*/claims.py"))
#: what computes an interval by hand: a quantile function of a distribution, or percentiles of replicates
INLINE_INTERVAL = (".ppf(", "np.percentile(")


def inline_intervals(source: str) -> list[str]:
    return [f"line {i}: {line.strip()}" for i, line in enumerate(source.splitlines(), 1)
            if any(p in line for p in INLINE_INTERVAL) and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("path", CLAIMS_FILES, ids=lambda p: p.parent.name)
def test_claims_take_their_intervals_from_runtime_stats(path):
    assert inline_intervals(path.read_text()) == [], (
        f"{path.parent.name}/claims.py computes an interval inline; use icmlbook.runtime.stats "
        "(mean_t_interval, effect_bound, percentile_interval, unit_bootstrap, normal_interval, welch_interval, ...)")


def test_the_interval_check_can_fail():
    assert inline_intervals("    lo, hi = np.percentile(boots, [2.5, 97.5])\n    z = norm.ppf(0.975)")
    assert not inline_intervals("    # np.percentile( in a comment\n    lo, hi, _ = percentile_interval(b)")
