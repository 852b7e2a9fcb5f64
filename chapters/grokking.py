import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import numpy as np

    from icmlbook.runtime import ClaimsLedger, new_figure, start_run
    return ClaimsLedger, mo, new_figure, np, start_run


@app.cell
def _(mo):
    mo.md(r"""
    # A tiny chapter

    A fixture for the pipeline's tests: prose with $e^{i\pi}+1=0$ and a citation [@xu2026grokking].
    """)
    return


@app.cell
def parameters():
    profile = "default"
    seed = 0
    return profile, seed


@app.cell
def _(profile, seed, start_run):
    run = start_run("grokking", profile=profile, seed=seed)
    return (run,)


@app.cell
def _(mo):
    scale = mo.ui.slider(1, 10, value=4, label="scale")
    scale
    return (scale,)


@app.cell
def _(new_figure, np, run, scale):
    x = np.random.default_rng(run.seed).normal(size=200) * scale.value
    fig, ax = new_figure()
    ax.hist(x, bins=20)
    ax.set_xlabel("value (units)")
    ax.set_ylabel("count")
    ax.set_title("A histogram")
    fig
    return (x,)


@app.cell
def _(ClaimsLedger, run, x):
    ledger = ClaimsLedger("grokking", run.profile)
    ledger.add("T1", statement="the sample mean is finite", rule="abs(mean) < inf",
               measured=f"{x.mean():.6f}", passed=bool(abs(x.mean()) < float("inf")))
    ledger
    return (ledger,)


@app.cell
def _(ledger, run):
    run.finish(ledger)
    run.provenance()
    return


if __name__ == "__main__":
    app.run()
