"""The book's pipeline: marimo chapter -> exported notebook -> papermill execution (+ run record)
-> Jupyter Book site. Command line: ``python -m icmlbook.pipeline --help``."""

from .export import export_chapter, prepare_notebook
from .execute import ExecutionJob, ExecutionResult, LocalBackend, execute_all, input_key, make_backend, run_job
from .postprocess import postprocess_notebook, staticize_html

__all__ = ["export_chapter", "prepare_notebook", "ExecutionJob", "ExecutionResult", "LocalBackend",
           "execute_all", "input_key", "make_backend", "run_job", "postprocess_notebook", "staticize_html"]
