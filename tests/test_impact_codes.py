"""bundle-spec.md, *Impact codes*: impacts stored as uint8 codes into 256 float32 levels."""

from __future__ import annotations

import numpy as np
from docsmcp_runtime.format.impact_codes import CODE_BLOCK, impact_codes, impact_levels
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays


def test_levels_are_square_root_spaced_up_to_the_largest_impact() -> None:
    levels = impact_levels(16.0)
    assert levels.dtype == np.float32 and levels.shape == (256,)
    assert levels[0] == 0 and levels[255] == np.float32(16.0)
    assert levels[1] == np.float32((4.0 / 255) ** 2)
    assert np.all(np.diff(levels) > 0)


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float16,
        st.integers(0, 300),
        elements=st.floats(0, 60000, width=16, allow_nan=False, allow_infinity=False),
    )
)
def test_each_impact_is_its_nearest_level_and_a_positive_one_stays_positive(
    impacts: np.ndarray,
) -> None:
    codes, levels = impact_codes(impacts)
    assert codes.dtype == np.uint8 and codes.shape == impacts.shape
    exact = impacts.astype(np.float64)
    if not len(impacts) or exact.max() == 0:
        assert not codes.any()
        return
    top = exact.max()
    assert levels[255] == np.float32(top)
    stored = levels[codes].astype(np.float64)
    assert np.all((stored > 0) == (exact > 0))  # a row a term reaches still matches
    # Nearest on the square-root scale, but for the positive impacts raised to code 1.
    error = np.abs(np.sqrt(stored) - np.sqrt(exact))
    step = np.sqrt(top) / 255
    assert np.all(error[codes > 1] <= step / 2 * (1 + 1e-6))
    assert np.all(stored[codes == 1] <= levels[1])


def test_codes_are_the_same_in_blocks_and_whole() -> None:
    """The builder codes ~10^8 postings in blocks of CODE_BLOCK: a block edge changes nothing."""
    rng = np.random.default_rng(7)
    impacts = (rng.random(CODE_BLOCK + 1000) * 17).astype(np.float16)
    impacts[0] = top = np.float16(17)  # the largest, in the first block
    codes, _ = impact_codes(impacts)
    first, _ = impact_codes(impacts[:CODE_BLOCK])
    rest, _ = impact_codes(np.r_[impacts[CODE_BLOCK:], top])  # coded against the same top
    assert np.array_equal(codes, np.r_[first, rest[:-1]])
