"""Where the point labels and the legend of a trade-off plot go: pure geometry in display pixels.

No matplotlib here (boxes ``(x0, y0, x1, y1)``, y up), so the layout is tested on coordinates;
the rules are in :func:`place_labels`, :func:`place_legend` and "TradeoffDisplay" in design.md.
"""

import numpy as np

# Directions around a point, and how a label box hangs from its anchor in each:
# -1 the box ends at the anchor, 0 centred on it, +1 starts at it.
_DIRECTIONS = np.array(
    [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)], dtype=float
)
# Preference order of the legend's places, as matplotlib's ``loc="best"``:
# corners, then the middles of the sides, then the centre; (fx, fy) are the
# fractions of the free width and height left of and below the legend.
_LEGEND_PLACES = (
    (1.0, 1.0), (0.0, 1.0), (0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5),
    (0.5, 0.0), (0.5, 1.0), (0.25, 1.0), (0.75, 1.0), (0.25, 0.0), (0.75, 0.0),
    (0.0, 0.25), (0.0, 0.75), (1.0, 0.25), (1.0, 0.75), (0.5, 0.5),
)  # fmt: skip
# Cost of crossing one line, counted in steps down the preference order.
_LINE_COST = 2.0


def boxes_overlap(boxes, others, pad=0.0):
    """Whether each box of ``boxes`` overlaps any box of ``others``.

    Parameters
    ----------
    boxes : array-like of shape (n, 4)
        Boxes ``(x0, y0, x1, y1)`` with ``x0 <= x1`` and ``y0 <= y1``.
    others : array-like of shape (m, 4)
        Boxes to test against.
    pad : float, default=0.0
        Margin added around ``boxes``: boxes closer than ``pad`` count as
        overlapping; touching boxes overlap only when ``pad > 0``.

    Returns
    -------
    ndarray of bool of shape (n,)
    """
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    others = np.asarray(others, dtype=float).reshape(-1, 4)
    if others.shape[0] == 0:
        return np.zeros(boxes.shape[0], dtype=bool)
    b, o = boxes[:, None, :], others[None, :, :]
    hit = (
        (b[..., 0] - pad < o[..., 2])
        & (b[..., 2] + pad > o[..., 0])
        & (b[..., 1] - pad < o[..., 3])
        & (b[..., 3] + pad > o[..., 1])
    )
    return hit.any(axis=1)


def segments_crossing(boxes, segments):
    """How many of ``segments`` pass through each box (Liang-Barsky clipping).

    Parameters
    ----------
    boxes : array-like of shape (n, 4)
        Boxes ``(x0, y0, x1, y1)``.
    segments : array-like of shape (m, 4)
        Segments ``(x_start, y_start, x_end, y_end)``; a segment of length 0
        counts when its point is inside the box.

    Returns
    -------
    ndarray of int of shape (n,)
    """
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    segments = np.asarray(segments, dtype=float).reshape(-1, 4)
    if segments.shape[0] == 0:
        return np.zeros(boxes.shape[0], dtype=int)
    x, y = segments[None, :, 0], segments[None, :, 1]
    dx, dy = segments[None, :, 2] - x, segments[None, :, 3] - y
    low = np.zeros((boxes.shape[0], segments.shape[0]))
    high = np.ones_like(low)
    inside = np.ones_like(low, dtype=bool)
    for p, q in (
        (-dx, x - boxes[:, None, 0]),
        (dx, boxes[:, None, 2] - x),
        (-dy, y - boxes[:, None, 1]),
        (dy, boxes[:, None, 3] - y),
    ):
        p = np.broadcast_to(p, low.shape)
        q = np.broadcast_to(q, low.shape)
        parallel = p == 0
        inside &= ~(parallel & (q < 0))  # parallel to this edge and outside it
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
        low = np.where(~parallel & (p < 0), np.maximum(low, t), low)
        high = np.where(~parallel & (p > 0), np.minimum(high, t), high)
    return np.sum(inside & (low <= high), axis=1)


def label_candidates(anchor, size, radius, gap, normal=None):
    """Boxes of a label of ``size`` around a marker: eight directions, and the normal.

    In each of the eight directions the box starts ``gap`` pixels beyond the
    marker's bounding square of half side ``radius`` (diagonal places clear
    the square's corner); along ``normal`` and its opposite, the box's centre
    moves out from the point until the box is ``gap`` pixels clear of the
    square. No place overlaps the label's own marker.

    Parameters
    ----------
    anchor : array-like of shape (2,)
        The point, in pixels.
    size : array-like of shape (2,)
        Width and height of the label, in pixels.
    radius : float
        Half the side of the marker's bounding square, in pixels.
    gap : float
        Space between the marker and the label, in pixels.
    normal : array-like of shape (2,), default=None
        A direction (such as the normal of the curve through the point) whose
        two places are added after the eight.

    Returns
    -------
    boxes : ndarray of shape (8, 4) or (10, 4)
        One box per direction of ``_DIRECTIONS`` (east first, counter-clockwise),
        then the places along ``normal`` and opposite to it.
    """
    (x, y), (w, h) = np.asarray(anchor, dtype=float), np.asarray(size, dtype=float)
    reach = radius + gap
    sx, sy = _DIRECTIONS[:, 0], _DIRECTIONS[:, 1]
    # x0: starts past the marker (+1), ends before it (-1) or is centred (0)
    x0 = np.where(sx > 0, x + reach, np.where(sx < 0, x - reach - w, x - w / 2))
    y0 = np.where(sy > 0, y + reach, np.where(sy < 0, y - reach - h, y - h / 2))
    boxes = np.c_[x0, y0, x0 + w, y0 + h]
    if normal is None:
        return boxes
    n = _unit(normal)
    with np.errstate(divide="ignore"):  # the first side the box clears decides
        t = np.min(np.abs(np.divide([reach + w / 2, reach + h / 2], n)))
    middle = np.array([[x, y]]) + np.outer([t, -t], n)
    return np.r_[boxes, np.c_[middle - [w / 2, h / 2], middle + [w / 2, h / 2]]]


def place_labels(
    anchors,
    sizes,
    normals,
    radii,
    markers,
    *,
    segments=None,
    bounds=None,
    gap=3.0,
    placed=None,
):
    """Boxes for point labels that overlap no marker, no other label and no edge.

    Labels are placed one after another in the given order (the first ones win
    a contested place); each takes, among its feasible places, the one with
    the lowest cost: its rank by angle from its preferred direction plus
    ``_LINE_COST`` per line it crosses. The places next to the marker
    (:func:`label_candidates`, with the preferred direction) are tried first
    for every label; the labels left without a place then try the two places
    along the normal, half a label height further out.

    Parameters
    ----------
    anchors : array-like of shape (n, 2)
        The labelled points, in pixels.
    sizes : array-like of shape (n, 2)
        Width and height of each label, in pixels.
    normals : array-like of shape (n, 2)
        Preferred direction of each label from its point (need not be unit).
    radii : array-like of shape (n,)
        Half the side of each labelled point's marker, in pixels.
    markers : array-like of shape (m, 4)
        Boxes of every marker on the axes (the labelled points' included):
        no label may overlap one.
    segments : array-like of shape (k, 4), default=None
        Lines a label should rather not cross (error bars, fronts, baselines).
    bounds : array-like of shape (4,), default=None
        The axes' box: a label must lie inside it.
    gap : float, default=3.0
        Space between a marker and its label, in pixels.
    placed : array-like of shape (p, 4), default=None
        Boxes of labels already on the axes, to avoid as well.

    Returns
    -------
    boxes : ndarray of shape (n, 4)
        The box of each label; rows of NaN for the labels left out.
    """
    anchors = np.asarray(anchors, dtype=float).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=float).reshape(-1, 2)
    normals = np.asarray(normals, dtype=float).reshape(-1, 2)
    radii = np.broadcast_to(np.asarray(radii, dtype=float), (anchors.shape[0],))
    markers = np.asarray(markers, dtype=float).reshape(-1, 4)
    segments = np.empty((0, 4)) if segments is None else np.asarray(segments, float)
    taken = [] if placed is None else [np.asarray(b, dtype=float) for b in placed]
    centres = np.c_[markers[:, 0] + markers[:, 2], markers[:, 1] + markers[:, 3]] / 2
    result = np.full((anchors.shape[0], 4), np.nan)
    # first every label next to its marker; then the ones left out, half a label height
    # further out along the normal (off the curve, where they still read as their point's)
    for extra in (0, 1):
        for i in np.flatnonzero(np.isnan(result[:, 0])):
            reach = gap + extra * sizes[i, 1] / 2
            boxes = label_candidates(anchors[i], sizes[i], radii[i], reach, normals[i])
            if extra:
                boxes = boxes[8:]
            # rank by the angle between the place's direction and the preferred one
            towards = (boxes[:, :2] + boxes[:, 2:]) / 2 - anchors[i]
            cosine = towards @ _unit(normals[i]) / np.hypot(*towards.T)
            rank = np.argsort(np.argsort(-cosine, kind="stable")) + len(boxes) * extra
            feasible = ~boxes_overlap(boxes, markers, pad=0.5)
            if taken:
                feasible &= ~boxes_overlap(boxes, np.asarray(taken), pad=1.0)
            if bounds is not None:
                x0, y0, x1, y1 = bounds
                feasible &= (
                    (boxes[:, 0] >= x0) & (boxes[:, 2] <= x1) & (boxes[:, 1] >= y0)
                    & (boxes[:, 3] <= y1)
                )  # fmt: skip
            # read as the label of its own point: its own point is the nearest to the
            # label's centre (by a pixel at least, so that no near-tie is left)
            own = np.hypot(*(centres - anchors[i]).T) < 0.5
            if (~own).any():
                middle = (boxes[:, :2] + boxes[:, 2:]) / 2
                own_distance = np.hypot(*(middle - anchors[i]).T)
                others = np.hypot(*(middle[:, None, :] - centres[None, ~own, :]).T).min(axis=0)
                feasible &= others > own_distance + 1.0
            if not feasible.any():
                continue
            cost = rank + _LINE_COST * segments_crossing(boxes, segments)
            cost[~feasible] = np.inf
            best = np.lexsort((rank, cost))[0]  # a tie goes to the preferred side
            result[i] = boxes[best]
            taken.append(boxes[best])
    return result


def place_legend(size, bounds, markers, *, labels=None, segments=None, pad=4.0, margin=0.0):
    """Lower-left corner of the legend where it covers no marker and no label.

    Parameters
    ----------
    size : array-like of shape (2,)
        Width and height of the legend, in pixels.
    bounds : array-like of shape (4,)
        The axes' box.
    markers : array-like of shape (m, 4)
        Boxes of the markers.
    labels : array-like of shape (p, 4), default=None
        Boxes of the point labels.
    segments : array-like of shape (k, 4), default=None
        Lines it should rather not cover.
    pad : float, default=4.0
        Space between the legend and the edge of the axes, in pixels.
    margin : float, default=0.0
        Free places that keep this distance from every marker and label are
        preferred, so that the place stays free when the axes are later
        resized a little.

    Returns
    -------
    corner : ndarray of shape (2,)
        Lower-left corner of the chosen place, in pixels: among the free
        places, the roomy ones first, then the one crossing the fewest
        lines, ties going to the first of ``_LEGEND_PLACES``.
    free : bool
        Whether that place covers no marker and no label. When False, the
        corner is the place covering the fewest of them (then lines), and the
        caller should rather put the legend outside the axes.
    """
    (w, h), (x0, y0, x1, y1) = np.asarray(size, float), np.asarray(bounds, float)
    places = np.asarray(_LEGEND_PLACES)
    left = x0 + pad + places[:, 0] * max(x1 - x0 - w - 2 * pad, 0.0)
    bottom = y0 + pad + places[:, 1] * max(y1 - y0 - h - 2 * pad, 0.0)
    boxes = np.c_[left, bottom, left + w, bottom + h]
    markers = np.asarray(markers, dtype=float).reshape(-1, 4)
    labels = np.empty((0, 4)) if labels is None else np.asarray(labels, float).reshape(-1, 4)
    obstacles = np.concatenate([markers, labels])
    covered = _count_overlaps(boxes, obstacles)
    cramped = _count_overlaps(boxes + [-margin, -margin, margin, margin], obstacles) > 0
    crossed = segments_crossing(boxes, np.empty((0, 4)) if segments is None else segments)
    best = np.lexsort((np.arange(len(boxes)), crossed, cramped, covered))[0]
    return boxes[best, :2], bool(covered[best] == 0)


def _count_overlaps(boxes, others):
    if others.shape[0] == 0:
        return np.zeros(boxes.shape[0], dtype=int)
    b, o = boxes[:, None, :], others[None, :, :]
    hit = (b[..., 0] <= o[..., 2]) & (b[..., 2] >= o[..., 0])
    hit &= (b[..., 1] <= o[..., 3]) & (b[..., 3] >= o[..., 1])
    return hit.sum(axis=1)


def _unit(vector):
    norm = np.hypot(*vector)
    return np.asarray(vector, dtype=float) / norm if norm > 0 else np.array([-1.0, 1.0]) / 2**0.5
