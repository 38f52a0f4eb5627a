"""An exercise's result card reads in dark themes too: it paints its own light background,
and its text and status colours reach WCAG's 4.5:1 on it (the widgets' rule)."""

import re

import pytest

from jtensor.exercises import Result
from jtensor.widgets._svg import contrast


@pytest.mark.parametrize("passed", [True, False])
def test_result_card_has_its_own_background_and_readable_colours(passed):
    html = Result("demo-1", passed, problems=["p"], hints=["h"])._repr_html_()
    card = re.match(r'<div class="jtensor-exercise" style="([^"]*)"', html).group(1)
    style = dict(part.split(":", 1) for part in card.split(";") if part)
    background = style["background"]
    assert style["color-scheme"] == "light"
    for colour in [style["color"], *re.findall(r"color:(#[0-9A-Fa-f]{6})", html)]:
        assert contrast(colour, background) >= 4.5, (colour, background)
