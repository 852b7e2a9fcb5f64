"""PSNR against the FP output from the same noise and a Fréchet distance in
the features of a small digits classifier ("FD-digits", never FID) or in the raw plane for 2-D data."""

from __future__ import annotations

import functools

import numpy as np
import torch
from scipy import linalg

__all__ = ["psnr", "frechet_distance", "DigitsFeatures", "digits_features", "DATA_RANGE"]

#: peak-to-peak range used by PSNR: digits live in [-1, 1]; the ring's points in about [-2, 2]
DATA_RANGE = {"digits": 2.0, "ring": 4.0}


def psnr(x: torch.Tensor, ref: torch.Tensor, data_range: float) -> np.ndarray:
    """Per-sample PSNR (dB) of ``x`` against ``ref``: 10·log10(range² / MSE); inputs (B, ...)."""
    if not (torch.isfinite(x).all() and torch.isfinite(ref).all()):
        raise ValueError("images contain NaN or inf")
    mse = (x - ref).reshape(x.shape[0], -1).double().pow(2).mean(1).clamp_min(1e-20)
    return (10 * torch.log10(data_range ** 2 / mse)).cpu().numpy()


def frechet_distance(f1: np.ndarray, f2: np.ndarray) -> float:
    """‖μ1−μ2‖² + tr(Σ1 + Σ2 − 2(Σ1Σ2)^{1/2}) between Gaussian fits of two feature sets (rows = samples),
    with a 1e-6 ridge on both covariances inside the square root."""
    mu1, mu2 = f1.mean(0), f2.mean(0)
    s1, s2 = np.atleast_2d(np.cov(f1, rowvar=False)), np.atleast_2d(np.cov(f2, rowvar=False))
    # dead ReLU features make the covariances singular; a 1e-6 ridge on both keeps sqrtm well defined
    ridge = 1e-6 * np.eye(s1.shape[0])
    covmean = np.real(linalg.sqrtm((s1 + ridge) @ (s2 + ridge)))
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1 + s2 - 2 * covmean))


class DigitsFeatures:
    """Hidden-layer features of a small MLP classifier (scikit-learn) trained on the bundled digits."""

    def __init__(self, hidden: int = 64, seed: int = 0):
        from sklearn.datasets import load_digits
        from sklearn.neural_network import MLPClassifier
        from threadpoolctl import threadpool_limits
        d = load_digits()
        X = d.data / 16.0
        with threadpool_limits(1):          # small matrices: more BLAS threads only contend (10x slower under load)
            self.clf = MLPClassifier(hidden_layer_sizes=(hidden,), max_iter=400, random_state=seed).fit(X, d.target)
        self.train_accuracy = float(self.clf.score(X, d.target))

    def __call__(self, images: torch.Tensor) -> np.ndarray:
        """(B, 1, 8, 8) images in [-1, 1] → (B, hidden) ReLU features."""
        X = ((images.reshape(images.shape[0], -1).double().cpu().numpy() + 1) / 2).clip(0, 1)
        return np.maximum(X @ self.clf.coefs_[0] + self.clf.intercepts_[0], 0)


@functools.lru_cache(maxsize=4)
def digits_features(hidden: int = 64, seed: int = 0) -> DigitsFeatures:
    """One :class:`DigitsFeatures` per (hidden, seed) and process: the studies share the same extractor."""
    return DigitsFeatures(hidden, seed)
