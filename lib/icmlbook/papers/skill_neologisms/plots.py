"""Figures of the skill-neologisms chapter (filled in below)."""
