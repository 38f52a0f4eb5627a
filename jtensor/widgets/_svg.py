"""Deterministic SVG/HTML building blocks shared by every widget.

Everything here is a pure function of its arguments: no ids, no addresses, no clocks, fixed
colours, numbers printed the same way every time. Every user string goes through ``esc``.

Themes: every picture sits on a light panel of its own (``wrap``: an explicit background and
text colour), so it reads the same in light and dark front ends (JupyterLab Dark, VS Code's
dark themes) without knowing which one is active. The colours below are chosen for that
panel: text reaches WCAG's 4.5:1 contrast on it and on the light cell fills (the browser test
measures it), and text drawn on a full data colour uses ``ink_on`` (black or white, whichever
contrasts more).
"""

import html
import math

# Okabe-Ito-like colours (distinguishable with the common colour-vision deficiencies), used
# in this order: the k-th tensor of a picture always gets PALETTE[k % len(PALETTE)].
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8C6D31",
           "#7F7F7F")
INK = "#222222"
# #777777 (the first choice) is 4.48:1 on white: below WCAG's 4.5, and less on tinted cells.
MUTED = "#595959"
GRID = "#BBBBBB"
BAD = "#C0392B"
PANEL = "#FFFFFF"  # the widgets' own background, whatever the front end's theme
FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"
# The panel every snapshot sits on: its own background and text colour (a dark theme's light
# text would vanish on the light cells), ``color-scheme: light`` so form parts drawn inside
# follow the panel, not the page; inline-block so the panel hugs the picture.
PANEL_STYLE = (f"background:{PANEL};color:{INK};color-scheme:light;display:inline-block;"
               "max-width:100%;box-sizing:border-box;padding:4px 8px;border-radius:4px")


def esc(value):
    """HTML-escape any value (quotes too, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def colour(k):
    return PALETTE[k % len(PALETTE)]


def _luminance(hex_colour):
    """WCAG's relative luminance of ``#RRGGBB``."""
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    """WCAG's contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink_on(hex_colour):
    """Black or white: whichever reads better on ``hex_colour`` (white on the orange of the
    palette would be 2:1)."""
    return "#000000" if contrast(hex_colour, "#000000") >= contrast(hex_colour, "#FFFFFF") \
        else "#FFFFFF"


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
    """The outer HTML of a snapshot: one div the page (and the browser test) can find, on
    the widgets' own light panel."""
    return (f'<div class="jtensor-widget jtensor-{kind}" style="{FONT};font-size:12px;'
            f'line-height:1.35;overflow-x:auto;{PANEL_STYLE}">{body}</div>')


def paragraph(text, colour_=INK, bold=False):
    weight = "font-weight:bold;" if bold else ""
    return f'<div style="color:{colour_};{weight}margin:2px 0">{esc(text)}</div>'


def error_note(message):
    """A control's error message (shown beside the controls, outside the picture's panel):
    red on a light background of its own, readable in dark themes too."""
    return (f'<span style="color:{BAD};background:{PANEL};padding:1px 6px;'
            f'border-radius:3px">{esc(message)}</span>')
