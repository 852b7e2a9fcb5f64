"""JAX set-up shared by the chapter's modules: double precision (the cable solver's gradients and the
threshold searches are checked in float64), imported before any JAX array is made."""

import jax

jax.config.update("jax_enable_x64", True)
