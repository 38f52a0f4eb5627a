"""Deterministic SVG/HTML building blocks shared by every widget.

Everything here is a pure function of its arguments: no ids, no addresses, no clocks, fixed
colours, numbers printed the same way every time. Every user string goes through ``esc``.
"""

import html
import math

# Okabe-Ito-like colours (distinguishable with the common colour-vision deficiencies), used
# in this order: the k-th tensor of a picture always gets PALETTE[k % len(PALETTE)].
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8C6D31",
           "#7F7F7F")
INK = "#222222"
MUTED = "#777777"
GRID = "#BBBBBB"
BAD = "#C0392B"
FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


def esc(value):
    """HTML-escape any value (quotes too, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def colour(k):
    return PALETTE[k % len(PALETTE)]


def tint(hex_colour, amount=0.75):
    """The colour mixed with white (``amount`` of white): a light fill for covered cells."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02X}" for c in mix)


def number(x, digits=4):
    """A short, stable text for a number: ints as ints, floats with ``digits`` significant
    digits, nan/inf spelled as Python does."""
    if isinstance(x, bool):
        return "True" if x else "False"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, complex):
        sign = "+" if x.imag >= 0 else "-"
        return f"{number(x.real, digits)}{sign}{number(abs(x.imag), digits)}j"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == int(x) and abs(x) < 1e6:
        return f"{int(x)}." if digits else str(int(x))
    return f"{x:.{digits}g}"


def shape_text(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class Svg:
    """An SVG document built from parts; ``render`` wraps them with a size and a label."""

    def __init__(self):
        self.parts = []

    def rect(self, x, y, w, h, fill="none", stroke=INK, width=1, dash=None, rx=0, title=None,
             data=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += f' rx="{rx}"' if rx else ""
        if data:
            extra += "".join(f' data-{k}="{esc(v)}"' for k, v in data.items())
        head = (f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" '
                f'stroke="{stroke}" stroke-width="{width:g}"{extra}')
        # A <title> child is the browser's tooltip for the shape.
        self.parts.append(f"{head}><title>{esc(title)}</title></rect>" if title else head + "/>")

    def text(self, x, y, value, size=11, anchor="start", fill=INK, weight=None, italic=False,
             cls=None):
        style = f' font-weight="{weight}"' if weight else ""
        style += ' font-style="italic"' if italic else ""
        style += f' class="{cls}"' if cls else ""
        self.parts.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" '
                          f'text-anchor="{anchor}" fill="{fill}"{style}>{esc(value)}</text>')

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                          f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>')

    def path(self, d, stroke=INK, width=1, fill="none", dash=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<path d="{d}" stroke="{stroke}" stroke-width="{width:g}" '
                          f'fill="{fill}"{extra}/>')

    def polygon(self, points, fill=INK):
        pts = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.parts.append(f'<polygon points="{pts}" fill="{fill}"/>')

    def arrow(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None, head=6):
        """A line with a drawn arrowhead (no <marker>: markers need document-wide ids)."""
        self.line(x1, y1, x2, y2, stroke, width, dash)
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        bx, by = x2 - ux * head, y2 - uy * head
        self.polygon([(x2, y2), (bx - uy * head / 2, by + ux * head / 2),
                      (bx + uy * head / 2, by - ux * head / 2)], fill=stroke)

    def render(self, width, height, kind, label):
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{math.ceil(width)}" '
                f'height="{math.ceil(height)}" viewBox="0 0 {math.ceil(width)} '
                f'{math.ceil(height)}" role="img" aria-label="{esc(label)}" '
                f'data-jtensor="{kind}" style="{FONT};display:block;margin:4px 0">'
                + "".join(self.parts) + "</svg>")


def wrap(kind, body):
    """The outer HTML of a snapshot: one div the page (and the browser test) can find."""
    return (f'<div class="jtensor-widget jtensor-{kind}" '
            f'style="{FONT};font-size:12px;line-height:1.35;overflow-x:auto">{body}</div>')


def paragraph(text, colour_=INK, bold=False):
    weight = "font-weight:bold;" if bold else ""
    return f'<div style="color:{colour_};{weight}margin:2px 0">{esc(text)}</div>'
