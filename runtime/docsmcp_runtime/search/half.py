"""float16 → float32 faster than numpy's cast, bit for bit (the bundle stores impacts and vectors
as float16; every search widens some of them)."""

from __future__ import annotations

import numpy as np

# 2**112: scales a float16's exponent field, moved into a float32, to the float32 exponent bias.
_REBIAS = np.float32(2.0**112)
_F16_MAGNITUDE = 0x7FFF
_F16_SIGN = 0x8000
_F16_EXPONENT_ALL_ONES = 0x7C00  # infinities and NaNs


def widen(half: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """float16 → float32 into `out`, bit-identical to numpy's cast, ~1.5x cheaper in CPU time.

    numpy casts float16 one element at a time; these are five vectorised integer passes: the
    magnitude bits shifted into place are a float32 2**112 times too small (normal and subnormal
    halves alike, exactly), then the sign is put back. Infinities and NaNs (never in a built
    bundle) take numpy's cast.
    """
    bits = half.view(np.uint16)
    np.bitwise_and(bits, _F16_MAGNITUDE, out=scratch, dtype=np.uint32, casting="unsafe")
    if scratch.size and int(scratch.max()) >= _F16_EXPONENT_ALL_ONES:
        np.copyto(out, half, casting="same_kind")
        return out
    np.left_shift(scratch, 13, out=scratch)
    np.multiply(scratch.view(np.float32), _REBIAS, out=out)
    np.bitwise_and(bits, _F16_SIGN, out=scratch, dtype=np.uint32, casting="unsafe")
    np.left_shift(scratch, 16, out=scratch)
    np.bitwise_or(out.view(np.uint32), scratch, out=out.view(np.uint32))
    return out
