"""``summary(tensor)``: one line of statistics and a histogram, for a tensor of any size."""

import math

import numpy as np

from ._base import Visual
from ._read import is_tensor, tensor_values
from ._svg import BAD, GRID, INK, MUTED, Svg, colour, number, paragraph, shape_text, wrap
from .._errors import type_name

# Chunks keep the float64 temporaries small; the histogram looks at most SAMPLE elements
# (an evenly spaced subset, so the same tensor always gives the same picture).
CHUNK = 1 << 20
SAMPLE = 1_000_000


def _flat_values(tensor):
    """The tensor's elements as a 1-D NumPy array (on the host), and a note on how it was
    read ("" or "copied from cuda:0")."""
    values = tensor_values(tensor)
    note = ""
    if values is None:
        # A deliberate read of device memory (a synchronisation point, like print(t)).
        host = tensor.detach().cpu()
        values = tensor_values(host)
        note = f"copied from {tensor.device}"
    flat = values.reshape(-1) if values.flags.c_contiguous else np.ravel(values, order="K")
    kind = flat.dtype
    if kind == np.bool_:
        flat = flat.view(np.uint8)
    elif kind.kind == "c":
        flat = np.abs(flat)
        note = (note + "; " if note else "") + "statistics of |x|"
    elif kind.kind not in "fiu" or (kind.kind == "f" and kind.itemsize < 4):
        flat = flat.astype(np.float32)  # float16, bfloat16, float8: compute in float32
    return flat, note


class TensorSummary(Visual):
    """Shape, dtype, device, min/max/mean/std, NaN and Inf counts, and a histogram.

    Statistics are exact (over finite values; NaN and Inf are counted apart), computed in
    float64 in chunks, so a 100,000,000-element tensor takes a fraction of a second; the
    histogram is drawn from at most 1,000,000 evenly spaced elements (the picture says so).
    ``std`` is ``t.std()``'s (correction 1).

    >>> import jtensor as torch
    >>> from jtensor.widgets import summary
    >>> print(summary(torch.tensor([1., 2., float('nan'), 4.]), name="x"))
    x: float32 (4,) cpu | min 1. max 4. mean 2.333 std 1.528 | nan 1 inf 0
    """

    kind = "summary"

    def __init__(self, tensor, bins=32, name=None, log=False):
        if not is_tensor(tensor):
            raise TypeError(f"summary() takes a Tensor, not {type_name(tensor)}")
        self.name = name
        self.shape = tuple(tensor.shape)
        self.dtype = tensor.dtype
        self.device = tensor.device
        self.numel = tensor.numel()
        self.bins = self._check_bins(bins)
        self.log = bool(log)
        flat, self.note = _flat_values(tensor)
        self._stats(flat)
        step = max(1, math.ceil(flat.size / SAMPLE))
        sample = flat[::step]
        if sample.dtype.kind == "f":
            sample = sample[np.isfinite(sample)]
        # Kept (at most SAMPLE values) so a new bin count needs no second pass over the tensor.
        self._sample = np.array(sample, dtype=np.float64)
        self.sampled = step > 1
        self._histogram()

    @staticmethod
    def _check_bins(bins):
        if not isinstance(bins, int) or isinstance(bins, bool) or not 1 <= bins <= 512:
            raise ValueError(f"bins must be an int from 1 to 512, got {bins!r}")
        return bins

    def _stats(self, flat):
        self.nan = self.posinf = self.neginf = 0
        self.count = flat.size  # the finite elements the statistics are over
        self.min = self.max = self.mean = self.std = None
        if flat.size == 0:
            return
        low, high = flat.min(), flat.max()
        clean = flat.dtype.kind != "f" or (np.isfinite(low) and np.isfinite(high))
        # One pass for min, max and the sum, chunk by chunk; chunks holding NaN or Inf count
        # them and keep their finite values (the whole tensor is never copied).
        low = high = None
        total = 0.0
        for chunk in self._finite_chunks(flat, clean, count=True):
            if chunk.size:
                cl, ch = chunk.min().item(), chunk.max().item()
                low = cl if low is None else min(low, cl)
                high = ch if high is None else max(high, ch)
                total += float(chunk.sum(dtype=np.float64))
        self.count = flat.size - self.nan - self.posinf - self.neginf
        if self.count == 0:
            return
        mean = total / self.count
        squares = 0.0
        buffer = np.empty(min(CHUNK, flat.size), dtype=np.float64)
        for chunk in self._finite_chunks(flat, clean, count=False):
            d = buffer[:chunk.size]
            np.subtract(chunk, mean, out=d)
            np.multiply(d, d, out=d)  # not np.dot: BLAS threads cost more than they save here
            squares += float(d.sum())
        self.min, self.max, self.mean = low, high, mean
        self.std = math.sqrt(squares / (self.count - 1)) if self.count > 1 else float("nan")

    def _finite_chunks(self, flat, clean, count):
        for i in range(0, flat.size, CHUNK):
            chunk = flat[i:i + CHUNK]
            if not clean:
                finite = np.isfinite(chunk)
                if not finite.all():
                    if count:
                        self.nan += int(np.count_nonzero(np.isnan(chunk)))
                        self.posinf += int(np.count_nonzero(chunk == np.inf))
                        self.neginf += int(np.count_nonzero(chunk == -np.inf))
                    chunk = chunk[finite]
            yield chunk

    def _histogram(self):
        if self._sample.size == 0 or self.min is None:
            self.counts, self.edges = np.zeros(self.bins, dtype=np.int64), None
            return
        low, high = float(self.min), float(self.max)
        if low == high:
            low, high = low - 0.5, high + 0.5
        self.counts, self.edges = np.histogram(self._sample, bins=self.bins, range=(low, high))

    # ------------------------------------------------------------------ state
    def set_bins(self, bins):
        """Redraw the histogram with another number of bins."""
        self.bins = self._check_bins(bins)
        self._histogram()
        self._refresh()

    def set_log(self, log):
        """Counts on a log scale (rare values visible) or a linear one."""
        self.log = bool(log)
        self._refresh()

    # ------------------------------------------------------------------ snapshot
    def text(self):
        head = f"{self.name}: " if self.name else ""
        head += f"{self.dtype.__repr__().replace('torch.', '')} {shape_text(self.shape)} " \
                f"{self.device}"
        if self.numel == 0:
            return head + " | empty"
        if self.min is None:
            stats = "no finite values"
        else:
            stats = (f"min {number(self.min)} max {number(self.max)} mean {number(self.mean)} "
                     f"std {number(self.std)}")
        inf = self.posinf + self.neginf
        line = f"{head} | {stats} | nan {self.nan:,} inf {inf:,}"
        if self.note:
            line += f" ({self.note})"
        return line

    def __str__(self):
        return self.text()

    def html(self):
        parts = [paragraph(self.text(), bold=True)]
        if self.numel and (self.nan or self.posinf or self.neginf):
            parts.append(paragraph(f"{self.nan:,} NaN, {self.posinf:,} +Inf, {self.neginf:,} "
                                   "-Inf left out of the statistics", colour_=BAD))
        parts.append(self._histogram_svg())
        if self.sampled:
            parts.append(paragraph(f"histogram of {self._sample.size:,} evenly spaced "
                                   f"elements out of {self.numel:,}; statistics over all",
                                   colour_=MUTED))
        return wrap(self.kind, "".join(parts))

    def _histogram_svg(self):
        svg = Svg()
        width, height, left, top = 420, 120, 70, 8
        counts = self.counts
        scaled = np.log10(counts + 1.0) if self.log else counts.astype(np.float64)
        peak = float(scaled.max()) if counts.size and scaled.max() > 0 else 1.0
        bar = width / max(1, len(counts))
        svg.rect(left, top, width, height, fill="#FFFFFF", stroke=GRID)
        for i, (c, v) in enumerate(zip(counts, scaled, strict=True)):
            h = height * float(v) / peak
            if c:
                svg.rect(left + i * bar, top + height - h, max(bar - 1, 1), h,
                         fill=colour(0), stroke="none",
                         title=f"{number(self.edges[i])} .. {number(self.edges[i + 1])}: {c:,}")
        svg.text(left - 4, top + 10, f"{int(counts.max()) if counts.size else 0:,}", size=9,
                 anchor="end", fill=MUTED)
        svg.text(left - 4, top + height, "0", size=9, anchor="end", fill=MUTED)
        if self.edges is not None:
            svg.text(left, top + height + 14, number(self.edges[0]), size=9, fill=INK)
            svg.text(left + width, top + height + 14, number(self.edges[-1]), size=9,
                     anchor="end", fill=INK)
        scale = "log scale" if self.log else "linear"
        svg.text(left + width / 2, top + height + 14, f"{len(counts)} bins, {scale}", size=9,
                 anchor="middle", fill=MUTED)
        return svg.render(left + width + 8, top + height + 22, self.kind,
                          f"histogram of {self.name or 'tensor'}")

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        bins = ipywidgets.IntSlider(value=self.bins, min=1, max=128, description="bins",
                                    continuous_update=False)
        log = ipywidgets.Checkbox(value=self.log, description="log counts")
        bins.observe(lambda change: self.set_bins(change["new"]), names="value")
        log.observe(lambda change: self.set_log(change["new"]), names="value")
        return [("bins", bins), ("log", log)]


def summary(tensor, bins=32, name=None):
    """One line of statistics and a histogram for ``tensor`` (any size). ``str()`` of the
    result is the plain-text line; in a notebook it displays the histogram (and, in a live
    kernel, controls for the bins and the scale). ``name`` defaults to the caller's
    variable name for the tensor."""
    if name is None and is_tensor(tensor):
        from ._read import caller_namespace, names_for

        name = names_for([tensor], caller_namespace(1))[0]
    return TensorSummary(tensor, bins=bins, name=name)
