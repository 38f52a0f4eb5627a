"""The widgets and the %%tensortrace report in dark themes: the colour rules behind them.

Every widget picture sits on a light panel of its own (explicit background and text colour),
so a dark theme's light text colour never lands on the light cells; the text colours reach
WCAG's 4.5:1 on that panel and on the light fills drawn under text; text on a full data
colour is black or white, whichever reads better; the ``%%tensortrace`` report keeps the
page's text colour and puts nothing opaque and light under it. The browser test
(tests/widgets/browser) measures the composed pages in JupyterLab's dark theme.
"""

import re

import pytest

import jtensor as torch
from jtensor.trace.report import html_report
from jtensor.widgets import (
    BroadcastView,
    DeviceTimeline,
    GradGraph,
    StorageMap,
    StrideExplorer,
    TraceView,
    summary,
)
from jtensor.widgets._svg import BAD, INK, MUTED, PALETTE, PANEL, contrast, error_note, ink_on, tint

pytest.importorskip("ipywidgets")

AA = 4.5  # WCAG 2's level AA for normal-size text


def test_contrast_is_wcags_ratio():
    # Reference values (WCAG's formula, as WebAIM's contrast checker gives them).
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#FFFFFF", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast("#0072B2", "#FFFFFF") == pytest.approx(5.19, abs=0.01)
    assert contrast("#123456", "#123456") == pytest.approx(1.0)


def test_text_on_a_data_colour_is_black_or_white_whichever_reads_better():
    for colour in PALETTE:
        ink = ink_on(colour)
        other = "#FFFFFF" if ink == "#000000" else "#000000"
        assert contrast(ink, colour) >= contrast(other, colour)
        assert contrast(ink, colour) >= AA, colour
    assert ink_on("#E69F00") == "#000000"  # white on the palette's orange would be 2:1
    assert ink_on("#0072B2") == "#FFFFFF"


def test_text_colours_read_on_the_panel_and_on_the_light_fills_under_text():
    # The fills text is drawn on: the panel, the fixed cell fills, the palette's tints as the
    # strips, grids and broadcast cells use them (0.7 and lighter).
    fills = [PANEL, "#FFFFFF", "#F6F6F6", "#FDECEA", "#FAFAFA", "#F4F4F4", "#F7F7F7", "#EEEEEE"]
    fills += [tint(c, amount) for c in PALETTE for amount in (0.7, 0.75, 0.8, 0.85)]
    for text in (INK, MUTED):
        worst = min(fills, key=lambda f: contrast(text, f))
        assert contrast(text, worst) >= AA, (text, worst)
    # Red marks errors on the panel, on the red-tinted cells of an out-of-bounds view and in
    # the grey grad_fn boxes (stale saved tensors).
    for fill in (PANEL, "#FDECEA", "#F7F7F7"):
        assert contrast(BAD, fill) >= AA, fill
    # The device timeline writes op names in INK on its kernels' stronger tints.
    for colour in PALETTE:
        assert contrast(INK, tint(colour, 0.35)) >= AA, colour


def _every_widget():
    x = torch.arange(12.0)
    a = x.view(3, 4)
    w = torch.ones(3, 2, requires_grad=True)
    loss = (torch.arange(6.0).view(2, 3) @ w).relu().sum()
    loss.backward(retain_graph=True)
    visuals = [
        StorageMap(a, a.t(), torch.ones(1).expand(4)),
        StrideExplorer(x),
        BroadcastView((2, 3), (4,)),
        GradGraph(loss),
        summary(torch.randn(1000)),
    ]
    xc = torch.ones(1000, device="cuda")
    with torch.trace.record() as trace:
        yc = (xc * 2).exp()
        yc.sum().item()
    return visuals + [TraceView(trace), DeviceTimeline(trace)]


def test_every_picture_sits_on_its_own_light_panel(cuda):
    for visual in _every_widget():
        html = visual.html()
        outer = re.match(r'<div class="jtensor-widget [^"]*" style="([^"]*)">', html)
        assert outer, visual.kind
        style = outer.group(1)
        assert f"background:{PANEL}" in style and f"color:{INK}" in style, visual.kind
        # Form parts inside follow the panel, not a dark page.
        assert "color-scheme:light" in style, visual.kind
        # Every text colour drawn is one of the checked ones (ink_on for full data colours).
        allowed = {INK, MUTED, BAD} | {ink_on(c) for c in PALETTE}
        fills = set(re.findall(r'<text [^>]*fill="(#[0-9A-Fa-f]{6})"', html))
        assert fills <= allowed, (visual.kind, fills - allowed)
        assert html == visual.html()  # still deterministic


def test_use_counts_on_the_storage_lanes_use_ink_on_their_colour():
    x = torch.arange(6.0)
    # Overlapping windows: storage cells read several times get the count in their lane;
    # the first lane is the palette's blue (white text), the second its orange (black).
    html = StorageMap(x.as_strided((3, 3), (1, 1)), x.as_strided((2, 2), (1, 1))).html()
    counts = re.findall(
        r'fill="(#[0-9A-F]{6})" stroke="none" stroke-width="1"/><text [^>]*'
        r'fill="(#[0-9A-F]{6})" font-weight="bold">×',
        html,
    )
    assert {lane for lane, _ in counts} == {PALETTE[0], PALETTE[1]}, counts
    for lane, text in counts:
        assert text == ink_on(lane) and contrast(text, lane) >= AA
    assert {text for _, text in counts} == {"#FFFFFF", "#000000"}


def test_control_error_messages_bring_their_own_background():
    note = error_note("index 9 is out of bounds <b>")
    assert f"color:{BAD}" in note and f"background:{PANEL}" in note
    assert "&lt;b&gt;" in note
    m = StorageMap(torch.arange(4.0))
    m.controls["tensor"].value = 0
    m.controls["index"].value = "9"
    assert (
        m.controls["message"].value.startswith('<span style="color:')
        and f"background:{PANEL}" in m.controls["message"].value
    )
    b = BroadcastView((2, 3), (4,))
    b.controls["shape1"].value = "x"
    assert f"background:{PANEL}" in b.controls["message"].value


def _report_css(html):
    style = re.search(r"<style>(.*?)</style>", html, flags=re.S).group(1)
    return dict(re.findall(r"([^{}]+)\{([^}]*)\}", style))


def test_tensortrace_report_keeps_the_themes_text_colour_and_nothing_light_under_it():
    x = torch.arange(6.0)
    with torch.trace.record() as trace:
        x.view(2, 3).t().contiguous()
    html = html_report(trace)
    rules = _report_css(html)
    for selector, body in rules.items():
        # Text colour comes from the page (light in a dark theme) except where a rule also
        # brings the background that colour was chosen for.
        if re.search(r"(^|;)color:", body):
            background = re.search(r"background:(#[0-9a-fA-F]{6})", body)
            colour = re.search(r"(?:^|;)color:(#[0-9a-fA-F]{6})", body).group(1)
            assert background, selector
            assert contrast(colour, background.group(1)) >= AA, selector
        elif "background" in body:
            # Under the theme's own text colour only a translucent grey (works on both).
            assert re.search(r"background:rgba\(128,128,128,0\.\d+\)", body), selector
    assert ".jt-trace .jt-line td" in rules
