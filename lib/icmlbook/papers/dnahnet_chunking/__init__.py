"""dnaHNet: tokeniser-free genomic language modelling with H-Net's dynamic chunking.

Shah et al., *dnaHNet: A Scalable and Hierarchical Foundation Model for Genomic Sequence Learning*, ICML 2026
(arXiv 2602.10603), building on Hwang, Wang & Gu, *Dynamic Chunking for End-to-End Hierarchical Sequence
Modeling* (H-Net, arXiv 2507.07955). dnaHNet's full text and code were not reached: the chunking mechanism follows
H-Net's equations and official MIT code (read, not copied); the layout, widths, ratios and optimiser of our
"dnaHNet-mini (H-Net-style, reconstruction)" are our choices. Reproduced here at ~0.1-0.3M parameters on megabases
of real bacterial DNA (the sequences in pyrodigal's wheel) and on a synthetic genome: routing, chunking, smoothing,
upsampling, the STE confidence residual, the ratio loss, one and two stages, baselines at matched FLOPs, boundary
biology, and zero-shot proxies (never MaveDB or DEG).

Modules: :mod:`.chunking` (the mechanism), :mod:`.model` (dnaHNet-mini and the Transformer baseline),
:mod:`.flops` (analytic counter), :mod:`.data` (DNA, genes, generator), :mod:`.analysis`, :mod:`.experiments`,
:mod:`.claims`, :mod:`.plots`, :mod:`.config`.
"""

from .chunking import RoutingModule, chunk, ratio_loss, smooth_loop, smooth_scan, ste, upsample
from .config import ARMS, PRESETS, DnaHNetConfig, config_for
from .model import DnaHNet, HNetConfig, NucleotideTransformer

__all__ = ["RoutingModule", "chunk", "ratio_loss", "smooth_loop", "smooth_scan", "ste", "upsample", "ARMS", "PRESETS",
           "DnaHNetConfig", "config_for", "DnaHNet", "HNetConfig", "NucleotideTransformer"]
