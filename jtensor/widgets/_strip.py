"""Drawing a storage as a strip of cells and a tensor as its logical grid (shared by the
storage map and the stride explorer)."""

from ._geometry import coverage, extent, index_choice, position, windows
from ._svg import BAD, GRID, INK, MUTED, ink_on, number, tint

CELL_W = 44
CELL_H = 24
PER_ROW = 16
LANE_H = 10
GAP_W = 30


def times_text(times):
    """``×3``; large repeat counts in the short scientific form (``×1e+08``)."""
    return f"×{times:,}" if times < 100_000 else f"×{times:.0e}"


def strip_layout(length, layouts, selected=None):
    """The items to draw: ``("cell", j)`` and ``("gap", skipped)``, covering the storage
    (``length`` cells) and any cell a layout reaches past its end."""
    points = []
    end = length
    for shape, stride, offset in layouts:
        if any(n == 0 for n in shape):
            continue
        first, last = extent(shape, stride, offset)
        points += [first, last - 6]
        end = max(end, last + 1)
    if selected is not None:
        points.append(selected)
    items = []
    cursor = 0
    for a, b in windows(points, end):
        if a > cursor:
            items.append(("gap", a - cursor))
        items += [("cell", j) for j in range(a, b)]
        cursor = b
    if cursor < end:
        items.append(("gap", end - cursor))
    return items


def draw_strip(svg, x0, y0, length, layouts, colours, values=None, selected=None,
               selected_colour=INK):
    """Draw the strip at (x0, y0). ``layouts``: (shape, stride, offset) per tensor, drawn in
    ``colours``; ``values(start, stop)`` gives the cells' values (None: not shown).
    Returns (width, height)."""
    items = strip_layout(length, layouts, selected)
    cells = [j for kind, j in items if kind == "cell"]
    # Coverage window by window (the cells between windows are never looked at).
    runs = []
    for j in cells:
        if runs and j == runs[-1][1] + 1:
            runs[-1][1] = j
        else:
            runs.append([j, j])
    counts = []
    for shape, stride, offset in layouts:
        found = {}
        for lo, hi in runs:
            found.update(coverage(shape, stride, offset, lo, hi))
        counts.append(found)
    shown = {}
    if values is not None:
        for lo, hi in runs:
            hi = min(hi, length - 1)
            block = values(lo, hi + 1) if hi >= lo else None
            if block is not None:
                shown.update((j, block[j - lo]) for j in range(lo, hi + 1))
    # Cells as wide as their longest text (index above, value inside, repeat count below).
    texts = [len(str(j)) * 5.0 for j in cells]
    texts += [len(number(v.item(), 3)) * 6.2 for v in shown.values()]
    texts += [len(times_text(t)) * 5.0 for c in counts for t in c.values() if t > 1]
    cell_w = max([CELL_W] + [t + 8 for t in texts])
    row_h = CELL_H + 14 + LANE_H * len(layouts) + 8
    width = 0
    rows = 0
    col_x = 0
    row = -1
    for n, (kind, j) in enumerate(items):
        if n % PER_ROW == 0:
            row += 1
            col_x = 0
        x = x0 + col_x
        y = y0 + row * row_h + 12
        if kind == "gap":
            label = f"{j:,} more"
            gap_w = max(GAP_W, len(label) * 5.0 + 8)
            svg.text(x + gap_w / 2, y + CELL_H / 2 + 4, "…", size=13, anchor="middle",
                     fill=MUTED)
            svg.text(x + gap_w / 2, y - 3, label, size=8, anchor="middle", fill=MUTED)
            col_x += gap_w
            width = max(width, col_x)
            continue
        owner = next((k for k, c in enumerate(counts) if c.get(j)), None)
        outside = j >= length
        fill = "#FFFFFF" if owner is None else tint(colours[owner])
        if outside:
            fill = "#FDECEA" if owner is not None else "#F6F6F6"
        is_selected = selected is not None and j == selected
        svg.rect(x, y, cell_w, CELL_H, fill=fill,
                 stroke=BAD if outside else (selected_colour if is_selected else GRID),
                 width=3 if is_selected else 1, dash="3,2" if outside else None,
                 data={"cell": j})
        svg.text(x + cell_w / 2, y - 3, str(j), size=8, anchor="middle",
                 fill=BAD if outside else MUTED)
        if j in shown:
            svg.text(x + cell_w / 2, y + CELL_H / 2 + 4, number(shown[j].item(), 3), size=10,
                     anchor="middle")
        elif outside:
            svg.text(x + cell_w / 2, y + CELL_H / 2 + 4, "out", size=9, anchor="middle",
                     fill=BAD)
        for k, c in enumerate(counts):
            times = c.get(j, 0)
            if times:
                ly = y + CELL_H + 2 + k * LANE_H
                svg.rect(x + 1, ly, cell_w - 2, LANE_H - 2, fill=colours[k], stroke="none")
                if times > 1:
                    svg.text(x + cell_w / 2, ly + LANE_H - 3, times_text(times), size=8,
                             anchor="middle", fill=ink_on(colours[k]), weight="bold")
        col_x += cell_w
        width = max(width, col_x)
    rows = row + 1
    return width, rows * row_h + 4


def grid_cells(shape, limit=8):
    """The logical indices to draw: a list of slices, each (leading index or None for
    an elision row, rows, cols) for the last two dimensions."""
    shape = tuple(shape)
    if len(shape) == 0:
        return [((), [None], [None])]
    rows_dim = shape[-2] if len(shape) >= 2 else 1
    rows = index_choice(rows_dim, limit) if len(shape) >= 2 else [None]
    cols = index_choice(shape[-1], limit)
    lead = shape[:-2]
    leads = [()]
    for n in lead:
        choice = index_choice(n, 3)
        leads = [p + (i,) for p in leads for i in choice]
    # A None anywhere in a leading index stands for the elided slices.
    out = []
    for p in leads[:6]:
        out.append((p, rows, cols))
    if len(leads) > 6:
        out.append((None, [], []))
    return out


def draw_grid(svg, x0, y0, shape, stride, offset, colour, values=None, selected=None,
              storage_length=None, limit=8):
    """Draw the logical grid (each cell: its storage index and value). Returns (w, h)."""
    # Cells as wide as the largest storage index (``@12345``) and value they show.
    biggest = offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True) if n > 0)
    gw, gh = max(46, (len(str(biggest)) + 1) * 5.0 + 8), 30
    if values is not None and biggest < (storage_length or 0):
        sample = values(offset, offset + 1)
        if sample is not None and len(sample):
            gw = max(gw, len(number(sample[0].item(), 3)) * 6.2 + 8, len(str(biggest)) * 6.2 + 8)
    y = y0
    width = 0
    for lead, rows, cols in grid_cells(shape, limit):
        if lead is None:
            svg.text(x0, y + 10, "⋮ more slices", size=10, fill=MUTED)
            y += 16
            continue
        if any(i is None for i in lead):
            svg.text(x0, y + 10, "⋮", size=12, fill=MUTED)
            y += 16
            continue
        if len(shape) > 2:
            svg.text(x0, y + 10, "[" + ", ".join(map(str, lead)) + ", :, :]", size=10,
                     fill=MUTED)
            y += 14
        # Column headers.
        if len(shape) >= 1:
            for c, j in enumerate(cols):
                svg.text(x0 + 30 + c * gw + gw / 2, y + 10, "…" if j is None else str(j),
                         size=9, anchor="middle", fill=MUTED)
        y += 14
        for r, i in enumerate(rows):
            if len(shape) >= 2:
                svg.text(x0 + 24, y + r * gh + gh / 2 + 4, "⋮" if i is None else str(i),
                         size=9, anchor="end", fill=MUTED)
            for c, j in enumerate(cols):
                cx = x0 + 30 + c * gw
                cy = y + r * gh
                if (len(shape) >= 2 and i is None) or (len(shape) >= 1 and j is None):
                    svg.text(cx + gw / 2, cy + gh / 2 + 4, "…", size=11, anchor="middle",
                             fill=MUTED)
                    continue
                index = lead + ((i,) if len(shape) >= 2 else ()) + ((j,) if shape else ())
                where = position(index, stride, offset)
                is_selected = selected is not None and tuple(selected) == index
                outside = storage_length is not None and where >= storage_length
                svg.rect(cx, cy, gw, gh, fill="#FDECEA" if outside else tint(colour, 0.8),
                         stroke=colour if is_selected else GRID, width=3 if is_selected else 1,
                         data={"index": ",".join(map(str, index))})
                svg.text(cx + gw / 2, cy + 11, f"@{where}", size=8, anchor="middle",
                         fill=BAD if outside else MUTED)
                if values is not None and not outside:
                    value = values(where, where + 1)
                    if value is not None and len(value):
                        svg.text(cx + gw / 2, cy + 24, number(value[0].item(), 3), size=10,
                                 anchor="middle")
        y += max(1, len(rows)) * gh + 6
        width = max(width, 30 + len(cols) * gw)
    return width, y - y0
