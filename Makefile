# ICML 2026, reimplemented. Every target installs what it needs first (a fresh machine needs only
# python3 >= 3.10, make, and for the site's MathJax and the browser tests: npm and apt-get).
#   make book [PROFILE=smoke|default|full] [CHAPTERS=grokking,...] [JOBS=2]   execute chapters, build the site
#   make book BACKEND=dask SCHEDULER=tcp://HOST:8786                         chapters on a Dask cluster (README)
#   make book STALL_TIMEOUT=600 CHAPTER_TIMEOUT=14400                        stop a chapter silent that long / in all
#   make test                                                                the whole test suite (CI runs this)
#   make live [CHAPTER=grokking] [PROFILE=default]                           open chapters in marimo
#   make bench [CHAPTER=grokking] [BENCH_PROFILES=default]                    benchmarks, the measured table (not tests)

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= default
CHAPTERS ?=
CHAPTER ?=
JOBS ?=
SEED ?= 0
BACKEND ?= local
SCHEDULER ?=
# the executor's watchdog: a chapter is stopped after STALL_TIMEOUT seconds without progress (no progress tick,
# output, finished cached artefact or new cell), or after CHAPTER_TIMEOUT seconds in all (0: no limit)
STALL_TIMEOUT ?= 600
CHAPTER_TIMEOUT ?= 14400
# CPU build of torch on this machine's disk; on a GPU box: make setup TORCH_SPEC='torch==2.13.0' with a CUDA index
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.installed
# make test: pytest-xdist workers (the chapter executions on one, in a group of their own; unit tests on both)
TEST_WORKERS ?= 2

.PHONY: setup browser book execute site test live bench check clean help

help:
	@sed -n '1,9p' Makefile

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m pip install --quiet --no-build-isolation "pytwed>=1.0.9"  # pyproject's "reference" group; its build imports numpy
	$(BIN)/python -m ipykernel install --sys-prefix --name icmlbook --display-name "ICML book (Python 3)" >/dev/null
	touch $(STAMP)

# Debian's Chromium for the site's browser checks (no browser download of any test tool's own)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || { echo "could not install chromium (needs root and Debian's packages)"; exit 1; }; }

RUN_OPTS = --profile $(PROFILE) --seed $(SEED) --backend $(BACKEND) $(if $(SCHEDULER),--scheduler $(SCHEDULER)) \
  $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(if $(JOBS),--jobs $(JOBS)) \
  --stall-timeout $(STALL_TIMEOUT) --chapter-timeout $(CHAPTER_TIMEOUT)

book: setup
	$(BIN)/python -m icmlbook.pipeline book $(RUN_OPTS)

execute: setup
	$(BIN)/python -m icmlbook.pipeline execute $(RUN_OPTS)

site: setup
	$(BIN)/python -m icmlbook.pipeline site

test: setup browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

# live reading opens the smoke profile (quick to run) unless PROFILE is given on the command line
LIVE_PROFILE := $(if $(filter command line environment,$(origin PROFILE)),$(PROFILE),smoke)
live: setup
	$(BIN)/marimo edit $(if $(CHAPTER),chapters/$(CHAPTER).py,chapters) -- --profile $(LIVE_PROFILE)

# chapter executions as make book runs them (one thread), merged into tests/benchmarks/chapters_measured.{json,md}
BENCH_PROFILES ?= smoke,default
bench: setup
	$(BIN)/python -m tests.benchmarks --chapters --profiles $(BENCH_PROFILES) $(if $(CHAPTER),--only $(CHAPTER))

check: setup
	$(BIN)/marimo check chapters/*.py
	$(BIN)/ruff check lib tests chapters

clean:
	rm -rf build book/_build book/chapters book/_toc.yml book/scoreboard.md book/build-report.md \
	  book/_static/plotly.min.js book/_vendor book/references.bib
