"""The matplotlib side of the trade-off layout: read an axes, place its labels and legend.

One invisible :class:`AxesLayout` artist per axes lays out the labels and the shared legend of
every display drawn there, again at every draw (why: "TradeoffDisplay" in ``docs/design.md``).
"""

import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import LineCollection

from sklearn_privacy.plotting._label_layout import place_labels, place_legend

LAYOUT_GID = "sklearn_privacy.tradeoff.layout"
LEGEND_GAP = 0.02  # between the axes and a legend beside them, in axes widths
# Markers that are no data point: error bar caps and tick marks.
_NOT_POINTS = {"", " ", "None", "none", None, "|", "_", 0, 1, 2, 3}
_NO_LINE = {"", " ", "None", "none", None}
_GAP = 3.0  # points between a marker and its label
_LEGEND_PAD = 4.0  # points between the legend and the edge of the axes
_LEGEND_MARGIN = 0.05  # room kept around an inside legend when possible, in axes heights


class AxesLayout(Artist):
    """Invisible artist that places the point labels and the legend of one axes.

    It is drawn first (lowest zorder) and draws nothing: its ``draw`` moves
    the labels (hiding those with no free place) and the legend it manages.
    A legend that found no free place inside the axes moves beside them and
    stays there, so that the layout does not flip between the two.
    """

    def __init__(self):
        super().__init__()
        self.set_gid(LAYOUT_GID)
        self.set_zorder(-np.inf)
        self.set_clip_on(False)  # so that layout engines ask for its (empty) extent
        self._labels = []  # [annotation, left and right neighbours (data), size (points)]
        self.legend = None  # the legend it places, anchored by its lower-left corner
        self.legend_outside = False
        self.owns_figure = False  # a display created the figure: it may widen it
        self.widened = False

    @classmethod
    def of(cls, ax):
        """The layout artist of ``ax``, added on first use."""
        for artist in ax.artists:
            if artist.get_gid() == LAYOUT_GID:
                return artist
        return ax.add_artist(cls())

    def add_label(self, text, left, right):
        """Manage ``text``, a point label; ``left`` and ``right`` are its series neighbours."""
        text.set_horizontalalignment("left")
        text.set_verticalalignment("bottom")
        self._labels.append([text, np.asarray(left, float), np.asarray(right, float), None])

    def make_room_for_legend(self, renderer):
        """Widen the figure once so that the legend beside the axes fits in it.

        Only for a figure a display created: the axes keep their size and
        place in inches, and the figure grows by what the legend needs.
        """
        if self.widened or self.legend is None:
            return
        self.widened = True
        ax = self.axes
        figure = ax.figure
        width, height = figure.get_size_inches()
        right = ax.bbox.x1 / figure.dpi
        needed = LEGEND_GAP * ax.bbox.width + self.legend.get_window_extent(renderer).width
        new_width = max(width, right + needed / figure.dpi + 0.1)
        figure.set_size_inches(new_width, height)
        if figure.get_layout_engine() is None:
            params = figure.subplotpars
            factor = width / new_width
            figure.subplots_adjust(left=params.left * factor, right=params.right * factor)

    def draw(self, renderer):
        if self.get_visible():
            self.update_layout(renderer)

    def get_tightbbox(self, renderer=None):
        # A layout engine measures the axes: place the legend first, so that
        # the engine sees where it will be drawn. The artist has no extent.
        if self.get_visible() and renderer is not None:
            self.update_layout(renderer)
        return None

    def update_layout(self, renderer):
        """Place the labels, then the legend."""
        ax = self.axes
        self._labels = [entry for entry in self._labels if entry[0].axes is ax]
        scale = ax.figure.dpi / 72.0
        markers, centres = _marker_boxes(ax, scale)
        segments = _segments(ax)
        bounds = np.asarray(ax.bbox.extents)
        label_boxes = self._place_labels(renderer, scale, markers, centres, segments, bounds)
        legend = self.legend
        if legend is None or ax.get_legend() is not legend:
            return
        box = legend.get_window_extent(renderer)
        if not self.legend_outside:
            corner, free = place_legend(
                (box.width, box.height),
                bounds,
                markers,
                labels=label_boxes,
                segments=segments,
                pad=_LEGEND_PAD * scale,
                margin=_LEGEND_MARGIN * (bounds[3] - bounds[1]),
            )
            self.legend_outside = not free
        if self.legend_outside:  # beside the axes, top aligned
            corner = np.array([bounds[2], bounds[3] - box.height])
            corner[0] += LEGEND_GAP * (bounds[2] - bounds[0])
        anchor = (corner - bounds[:2]) / (bounds[2:] - bounds[:2])
        current = legend.get_bbox_to_anchor()
        at = ax.transAxes.inverted().transform([current.x0, current.y0])
        if not np.allclose(at, anchor, atol=1e-4):
            legend.set_bbox_to_anchor(tuple(anchor), transform=ax.transAxes)

    def _place_labels(self, renderer, scale, markers, centres, segments, bounds):
        if not self._labels:
            return np.empty((0, 4))
        to_pixels = self.axes.transData.transform
        anchors = to_pixels(np.asarray([entry[0].xy for entry in self._labels], float))
        tangents = to_pixels(np.asarray([entry[2] for entry in self._labels])) - to_pixels(
            np.asarray([entry[1] for entry in self._labels])
        )
        normals = np.c_[-tangents[:, 1], tangents[:, 0]]
        # the side of less leakage and more utility, where no achievable point lies
        flip = (normals[:, 1] < 0) | ((normals[:, 1] == 0) & (normals[:, 0] > 0))
        normals[flip] *= -1
        normals[~np.any(normals != 0, axis=1)] = (-1.0, 1.0)
        sizes = np.asarray([self._size(entry, renderer) for entry in self._labels]) * scale
        boxes = place_labels(
            anchors,
            sizes,
            normals,
            _radius_at(anchors, centres, markers),
            markers,
            segments=segments,
            bounds=bounds,
            gap=_GAP * scale,
        )
        for (text, *_), anchor, box in zip(self._labels, anchors, boxes):
            shown = not np.isnan(box[0])
            if shown:
                offset = tuple((box[:2] - anchor) / scale)
                if not np.allclose(text.xyann, offset, atol=0.01):
                    text.xyann = offset
            if text.get_visible() != shown:
                text.set_visible(shown)
        return boxes[~np.isnan(boxes[:, 0])]

    def _size(self, entry, renderer):
        """Size of a label in points, measured while it is shown (kept while hidden)."""
        text = entry[0]
        if text.get_visible() or entry[3] is None:
            hidden = not text.get_visible()
            text.set_visible(True)  # a hidden text has no extent
            box = text.get_window_extent(renderer)
            text.set_visible(not hidden)
            entry[3] = np.array([box.width, box.height]) * 72.0 / self.axes.figure.dpi
        return entry[3]


def _marker_boxes(ax, scale):
    """Pixel boxes and centres of every data marker drawn on ``ax``."""
    boxes, centres = [np.empty((0, 4))], [np.empty((0, 2))]
    for line in ax.get_lines():
        if not line.get_visible() or line.get_marker() in _NOT_POINTS:
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        half = 0.5 * (line.get_markersize() + line.get_markeredgewidth()) * scale
        boxes.append(np.c_[xy - half, xy + half])
        centres.append(xy)
    return np.concatenate(boxes), np.concatenate(centres)


def _radius_at(anchors, centres, markers):
    """Half side of the marker drawn at each anchor (the largest if several)."""
    if len(centres) == 0:
        return np.zeros(len(anchors))
    half = (markers[:, 2] - markers[:, 0]) / 2
    near = np.hypot(*(anchors[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)) < 0.5
    return np.where(near, half[None, :], 0.0).max(axis=1)


def _segments(ax):
    """Pixel segments of the lines (fronts, baselines, curves) and error bars of ``ax``."""
    parts = [np.empty((0, 4))]
    for line in ax.get_lines():
        if line.get_visible() and line.get_linestyle() not in _NO_LINE:
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
            parts.append(np.c_[xy[:-1], xy[1:]])
    for collection in ax.collections:
        if isinstance(collection, LineCollection) and collection.get_visible():
            transform = collection.get_transform()
            for path in collection.get_segments():
                xy = transform.transform(np.asarray(path, dtype=float))
                parts.append(np.c_[xy[:-1], xy[1:]])
    segments = np.concatenate(parts)
    return segments[np.all(np.isfinite(segments), axis=1)]
