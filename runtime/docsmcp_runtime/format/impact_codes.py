"""uint8 codes for the postings' impacts (bundle-spec.md, *Impact codes*): the builder writes
them, the runtime scores with their levels, so both use this module.

Level `k` of 256 is `(k / 255 * sqrt(top))^2` (float64, stored as float32), `top` the largest
impact, and an impact's code is the level nearest on that square-root scale, `rint(sqrt(x) /
sqrt(top) * 255)`, but at least 1 for a positive impact: a row a term reaches keeps a positive
score, so it still matches. Square-root spacing puts more levels where most impacts are (1-13
on the corpora here) than log spacing, and stays finer than linear for small ones: the largest
error is top / 255^2 * 255 ~ 0.07 on speakeasy-sdks (top 17.1), and every dev set ranks as
with float16 impacts (docs/search.md).
"""

from __future__ import annotations

import numpy as np

from .layout import IMPACT_LEVELS

# Impacts coded at once (float64 work arrays of this many; bounds the builder's memory on a
# million-chunk bundle's ~10^8 postings).
CODE_BLOCK = 1 << 22
_TOP_CODE = IMPACT_LEVELS - 1


def impact_levels(top: float) -> np.ndarray:
    """float32 [IMPACT_LEVELS]: the level of each code for a largest impact `top`."""
    steps = np.arange(IMPACT_LEVELS, dtype=np.float64) / _TOP_CODE
    return ((steps * np.sqrt(max(top, 0.0))) ** 2).astype(np.float32)


def impact_codes(impacts: np.ndarray, top: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(uint8 codes, float32 levels) of float16 (or float32) impacts >= 0. `top`: the level of
    the last code (default, or when not positive: the largest impact); a larger impact takes
    the last code."""
    if top is None or top <= 0:
        top = float(impacts.max()) if len(impacts) else 0.0
    levels = impact_levels(top)
    codes = np.zeros(len(impacts), dtype=np.uint8)
    if top <= 0:
        return codes, levels
    scale = _TOP_CODE / np.sqrt(top)
    for start in range(0, len(impacts), CODE_BLOCK):
        block = np.asarray(impacts[start : start + CODE_BLOCK], dtype=np.float64)
        code = np.rint(np.sqrt(block) * scale)
        code[(code == 0) & (block > 0)] = 1
        np.clip(code, 0, _TOP_CODE, out=code)
        codes[start : start + len(block)] = code
    return codes, levels
