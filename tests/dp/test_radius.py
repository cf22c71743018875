"""The private radius read from a noisy log2 histogram (``dp/_radius.py``).

Issue 47: a bin of pure noise beyond ``LARGEST_RADIUS`` that cleared the ordinary threshold
refused a sound fit ("lies beyond 3.27e+150 ... divide X by 1e150").
"""

import numpy as np
import pytest
from scipy.stats import norm

from sklearn_privacy.dp import dp_norm_quantile
from sklearn_privacy.dp._radius import (
    LARGEST_RADIUS,
    N_BINS,
    bin_edges,
    bin_thresholds,
    log2_bins,
    noise_threshold,
    quantile_from_noisy_histogram,
)

# the first bin whose norms lie beyond LARGEST_RADIUS: [2^500, 2^501)
FIRST_BEYOND = int(log2_bins([LARGEST_RADIUS])[0])


def test_the_thresholds_are_the_stated_chances_of_a_bin_of_noise():
    """Oracle: the normal tail (scipy) at 0.001 and 1e-9 over the 2099 bins."""
    sigma = 3.0
    thresholds = bin_thresholds(sigma)
    assert FIRST_BEYOND == 1575 and N_BINS == 2099
    assert bin_edges()[FIRST_BEYOND - 1] == LARGEST_RADIUS
    assert np.all(thresholds[:FIRST_BEYOND] == noise_threshold(sigma))
    assert thresholds[0] / sigma == pytest.approx(4.9011, abs=1e-4)
    assert norm.sf(thresholds[FIRST_BEYOND:] / sigma) * N_BINS == pytest.approx(1e-9, rel=1e-9)
    assert thresholds[-1] / sigma == pytest.approx(7.1372, abs=1e-4)


@pytest.mark.parametrize("deviations, expected", [(5.5, None), (7.0, None), (7.2, np.inf)])
def test_a_lone_bin_beyond_the_largest_radius_needs_the_higher_threshold(deviations, expected):
    """The case of issue 47 (seed 6304: one bin of noise, [2^543, 2^544), read 4.96 sigma, the
    rows' own bins none): 5.5 and 7.0 sigma there read no radius (before: infinity)."""
    noisy = np.zeros(N_BINS)
    noisy[FIRST_BEYOND + 470] = deviations
    assert quantile_from_noisy_histogram(noisy, 1.0, 0.95) == expected
    # below LARGEST_RADIUS the ordinary threshold reads it (a poor radius, not a refusal)
    noisy = np.roll(noisy, -600)
    assert quantile_from_noisy_histogram(noisy, 1.0, 0.95) == bin_edges()[FIRST_BEYOND + 470 - 600]


def test_the_rows_are_read_when_a_fuller_bin_of_noise_lies_beyond():
    """Seed 14490 of issue 47: the rows' bin [1, 2) read 5.39 sigma, a bin of noise at 2^670
    5.42: the fullest bin that clears its threshold is the rows'."""
    noisy = np.zeros(N_BINS)
    rows_bin = int(log2_bins([1.5])[0])
    noisy[rows_bin], noisy[rows_bin + 669] = 5.39, 5.42
    assert quantile_from_noisy_histogram(noisy, 1.0, 0.95) == 2.0
    noisy[rows_bin + 669] = 7.2  # rows beyond, more of them: the refusal's reading
    assert quantile_from_noisy_histogram(noisy, 1.0, 0.95) == np.inf


def test_noise_alone_reads_no_radius_beyond_the_largest():
    """10 000 histograms of pure noise: about 0.001 of them read a radius somewhere, never
    beyond LARGEST_RADIUS. Under the ordinary threshold everywhere, 3 of them did."""
    rng = np.random.default_rng(3)
    z_bin = noise_threshold(1.0)
    readings, old_beyond = [], 0
    for _ in range(10):
        noisy = rng.normal(size=(1000, N_BINS))
        clear = noisy > z_bin
        old_beyond += int(clear[:, FIRST_BEYOND:].any(axis=1).sum())
        # the reader itself, on every histogram with a bin over the ordinary threshold
        readings += [quantile_from_noisy_histogram(h, 1.0, 0.95) for h in noisy[clear.any(1)]]
    assert old_beyond == 3  # the refusals of the former rule in this draw
    assert len(readings) == 14  # about 10 000 x 0.001
    read = [r for r in readings if r is not None]
    assert len(read) == 11 and max(read) <= LARGEST_RADIUS  # the 3 read nothing now


def test_rows_beyond_the_largest_radius_are_still_refused():
    """Rows of norm 1e200 clear the higher threshold: dp_norm_quantile still names the cause."""
    X = 1e200 * np.random.default_rng(0).normal(size=(3000, 3))
    with pytest.raises(ValueError, match=r"lies beyond 3.27e\+150: their squares overflow"):
        dp_norm_quantile(X, 0.95, epsilon=1.0, delta=1e-6, random_state=0)
    r = dp_norm_quantile(X * 1e-60, 0.95, epsilon=1.0, delta=1e-6, random_state=0)
    assert 1e140 < r < 1e141
