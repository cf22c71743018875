"""The label and legend geometry of the trade-off display, on coordinates alone (pixels)."""

import itertools

import numpy as np
import pytest

from sklearn_privacy.plotting._label_layout import (
    boxes_overlap,
    label_candidates,
    place_labels,
    place_legend,
    segments_crossing,
)


def _square(x, y, half):
    return [x - half, y - half, x + half, y + half]


def _strictly_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_boxes_overlap_touching_and_padding():
    box = [[0, 0, 10, 10]]
    assert boxes_overlap(box, [[5, 5, 15, 15]]).tolist() == [True]
    assert boxes_overlap(box, [[10, 0, 20, 10]]).tolist() == [False]  # touching edges
    assert boxes_overlap(box, [[11, 0, 20, 10]], pad=2).tolist() == [True]
    assert boxes_overlap(box, [[13, 0, 20, 10]], pad=2).tolist() == [False]
    assert boxes_overlap(box, np.empty((0, 4))).tolist() == [False]


def test_segments_crossing_against_matplotlib_paths():
    # oracle: matplotlib's Path.intersects_bbox (its own clipping code)
    mpl = pytest.importorskip("matplotlib")
    from matplotlib.path import Path
    from matplotlib.transforms import Bbox

    del mpl
    rng = np.random.default_rng(0)
    boxes = np.sort(rng.uniform(0, 100, (40, 2, 2)), axis=1).transpose(0, 2, 1).reshape(40, 4)
    boxes = boxes[:, [0, 2, 1, 3]]  # (x0, y0, x1, y1)
    segments = rng.uniform(-20, 120, (60, 4))
    segments[:10, 3] = segments[:10, 1]  # horizontal ones, as error bars and baselines
    segments[10:20, 2] = segments[10:20, 0]  # vertical ones
    counts = segments_crossing(boxes, segments)
    for box, count in zip(boxes, counts):
        bbox = Bbox([box[:2], box[2:]])
        expected = sum(
            Path([seg[:2], seg[2:]]).intersects_bbox(bbox, filled=False) for seg in segments
        )
        assert count == expected
    assert counts.sum() > 0


def test_segments_crossing_cases():
    box = [[0, 0, 10, 10]]
    cases = {
        (-5, 5, 15, 5): 1,  # through
        (2, 2, 3, 3): 1,  # inside
        (-5, -5, -1, 20): 0,  # beside
        (-5, 20, 20, -5): 1,  # diagonal through a corner region
        (-5, 30, 30, -5): 0,  # diagonal missing the box
        (5, 5, 5, 5): 1,  # a point inside
    }
    for segment, expected in cases.items():
        assert segments_crossing(box, [segment]).tolist() == [expected], segment


def test_label_candidates_coordinates():
    boxes = label_candidates((100, 50), (20, 10), radius=4, gap=3)
    assert boxes.shape == (8, 4)
    # east: starts 4 + 3 right of the point, centred vertically
    np.testing.assert_allclose(boxes[0], [107, 45, 127, 55])
    # north: starts 7 above, centred horizontally
    np.testing.assert_allclose(boxes[2], [90, 57, 110, 67])
    # west and south-west end 7 before the point
    np.testing.assert_allclose(boxes[4], [73, 45, 93, 55])
    np.testing.assert_allclose(boxes[5], [73, 33, 93, 43])
    # along a normal: the centre moves out until the box clears the square by the gap;
    # up-left at 45 degrees, the box's bottom (5 below its centre) clears first
    boxes = label_candidates((100, 50), (20, 10), radius=4, gap=3, normal=(-1, 1))
    assert boxes.shape == (10, 4)
    np.testing.assert_allclose(boxes[8], [78, 57, 98, 67])
    np.testing.assert_allclose(boxes[9], [102, 33, 122, 43])
    # an axis-aligned normal gives the place of that direction
    boxes = label_candidates((100, 50), (20, 10), radius=4, gap=3, normal=(0, -2))
    np.testing.assert_allclose(boxes[8], boxes[6])
    # none touches the marker's square, padded by less than the gap
    for normal in ((1, 0), (-1, 1), (0.3, 1), (2, -1)):
        boxes = label_candidates((100, 50), (20, 10), radius=4, gap=3, normal=normal)
        assert not boxes_overlap(boxes, [_square(100, 50, 4)], pad=2.9).any()
        assert boxes_overlap(boxes[8:], [_square(100, 50, 4)], pad=3.1).all()


def test_place_labels_prefers_the_normal_side():
    anchors = np.array([[100.0, 100.0]])
    markers = np.array([_square(100, 100, 4)])
    for normal in ((1, 0), (-1, 1), (0, -1), (-0.3, 1)):
        boxes = place_labels(anchors, [[20, 10]], [normal], [4], markers, gap=3)
        expected = label_candidates(anchors[0], (20, 10), 4, 3, normal)[8]
        np.testing.assert_allclose(boxes[0], expected)


def test_place_labels_avoids_markers_labels_lines_and_edges():
    # a point with neighbours on its preferred (upper-left) side and to its right
    anchors = np.array([[100.0, 100.0], [130.0, 100.0]])
    markers = np.array([_square(100, 100, 4), _square(130, 100, 4), _square(85, 115, 4)])
    boxes = place_labels(anchors, [[20, 10], [20, 10]], [(-1, 1), (-1, 1)], [4, 4], markers, gap=3)
    assert not np.isnan(boxes).any()
    for box in boxes:
        for marker in markers:
            assert not _strictly_overlap(box, marker)
    assert not _strictly_overlap(boxes[0], boxes[1])
    # the first label does not sit by the marker at (85, 115): it reads as that point's
    centre = (boxes[0][:2] + boxes[0][2:]) / 2
    assert np.hypot(*(centre - anchors[0])) < np.hypot(*(centre - [85, 115]))
    # lines through the preferred place (above) send the label to the next free one;
    # a line costs two steps down the preference order
    above = label_candidates(anchors[0], (20, 10), 4, 3, (0, 1))[8]
    np.testing.assert_allclose(above, [90, 107, 110, 117])
    lines = [[95, 105, 95, 120], [105, 105, 105, 120]]
    one = place_labels(anchors[:1], [[20, 10]], [(0, 1)], [4], markers[:1], segments=lines[:1])
    np.testing.assert_allclose(one[0], above)
    two = place_labels(anchors[:1], [[20, 10]], [(0, 1)], [4], markers[:1], segments=lines)
    assert segments_crossing(two[:1], lines).tolist() == [0]
    assert two[0][1] >= 107  # still above the point (north-east or north-west)
    # the axes' edges: a point in the top-right corner is labelled below-left
    boxes = place_labels(
        anchors[:1], [[20, 10]], [(1, 1)], [4], markers[:1], bounds=(0, 0, 105, 105)
    )
    assert boxes[0][2] <= 105 and boxes[0][3] <= 105


def test_place_labels_leaves_out_a_label_with_no_free_place():
    # a point boxed in by eight close neighbours
    anchors = np.array([[100.0, 100.0]])
    around = [_square(100 + dx, 100 + dy, 4) for dx in (-12, 0, 12) for dy in (-12, 0, 12)]
    boxes = place_labels(anchors, [[20, 10]], [(-1, 1)], [4], np.array(around), gap=3)
    assert np.isnan(boxes).all()


def test_place_labels_dense_curve_no_overlap():
    x = np.linspace(50, 350, 40)
    anchors = np.c_[x, 100 + 150 * np.sqrt((x - 50) / 300)]
    markers = np.c_[anchors - 4, anchors + 4]
    tangents = np.gradient(anchors, axis=0)
    normals = np.c_[-tangents[:, 1], tangents[:, 0]]
    boxes = place_labels(
        anchors, np.tile([22.0, 11.0], (40, 1)), normals, 4, markers, bounds=(0, 0, 400, 300)
    )
    shown = boxes[~np.isnan(boxes[:, 0])]
    assert 5 <= len(shown) < 40
    for a, b in itertools.combinations(shown, 2):
        assert not _strictly_overlap(a, b)
    for box in shown:
        assert not boxes_overlap([box], markers).any()


def test_place_legend_free_corner_lines_and_margin():
    bounds = (0, 0, 400, 300)
    # points in the upper right: the legend goes to the upper left
    markers = np.array([_square(x, y, 4) for x, y in ((350, 280), (380, 250), (300, 270))])
    corner, free = place_legend((100, 60), bounds, markers, pad=4)
    assert free
    np.testing.assert_allclose(corner, [4, 300 - 4 - 60])
    # a label in the upper left too: the next free place in the order (lower left)
    corner, free = place_legend((100, 60), bounds, markers, labels=[[10, 250, 40, 260]], pad=4)
    assert free
    np.testing.assert_allclose(corner, [4, 4])
    # a line across the lower left: the lower right crosses none
    corner, _ = place_legend(
        (100, 60), bounds, markers, labels=[[10, 250, 40, 260]], segments=[[0, 30, 150, 30]]
    )
    np.testing.assert_allclose(corner, [400 - 4 - 100, 4])
    # a marker just beside the lower-left place: with a margin another place is preferred
    near = np.r_[markers, [_square(110, 30, 4)]]
    corner, free = place_legend((100, 60), bounds, near, labels=[[10, 250, 40, 260]], margin=10)
    assert free and not np.allclose(corner, [4, 4])


def test_place_legend_reports_no_free_place():
    bounds = (0, 0, 200, 100)
    grid = [_square(x, y, 3) for x in range(10, 200, 30) for y in range(10, 100, 25)]
    corner, free = place_legend((120, 60), bounds, np.array(grid))
    assert not free
    assert corner.shape == (2,)
