"""JAX set-up shared by the chapter's modules: double precision (the cable solver's gradients and the
threshold searches are checked in float64), imported before any JAX array is made, and the CPU backend started
on the threads the book's executor allots (``runtime.start_jax_cpu``: XLA otherwise takes every core, so a chapter
told to use one thread used two; session 14)."""

import jax

from ...runtime.device import start_jax_cpu

jax.config.update("jax_enable_x64", True)
start_jax_cpu()
