"""``torch.torch_version.TorchVersion``: a ``str`` that compares as a version.

``torch.__version__ >= "2.0"``, ``torch.__version__ > (2, 1)`` and comparisons with
``packaging.version.Version`` order by PEP 440 (``"2.13.0+cpu" > "2.9"``), as PyTorch's
``TorchVersion`` does; a string that is no version (``"parrot"``) falls back to ``str``
comparison. It stays a ``str``: ``.split(".")``, ``startswith`` and f-strings work as before.
As in PyTorch, ``!=`` is ``str``'s (only ``==`` and the orderings compare as versions).
"""

import re
from collections.abc import Iterable

__all__ = ["TorchVersion"]

_PATTERN = re.compile(
    r"""^\s*v?
    (?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d+)?)?
    (?:(?:-(?P<post_n1>\d+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?))?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


class InvalidVersion(ValueError):
    """Not a PEP 440 version."""


def _key(text):
    """The PEP 440 sort key of ``text`` (the order ``packaging.version.Version`` uses)."""
    m = _PATTERN.match(str(text))
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    post = m["post_n1"] or m["post_n2"] or ("0" if m["post_l"] else None)
    dev = m["dev_n"] or ("0" if m["dev_l"] else None)
    if m["pre_l"] is not None:
        pre = (_PRE[m["pre_l"].lower()], int(m["pre_n"] or 0))
    elif post is None and dev is not None:
        pre = (-_INF, 0)
    else:
        pre = (_INF, 0)
    local = (
        ()
        if m["local"] is None
        else tuple(
            (int(p), "") if p.isdigit() else (-_INF, p.lower())
            for p in re.split(r"[-_.]", m["local"])
        )
    )
    return (
        int(m["epoch"] or 0),
        tuple(release),
        pre,
        -_INF if post is None else int(post),
        _INF if dev is None else int(dev),
        local or ((-_INF, ""),),  # no local label sorts before any
    )


class TorchVersion(str):
    """A version string that compares with strings, tuples and ``Version`` objects."""

    __slots__ = ()

    def _other_key(self, other):
        if isinstance(other, str):
            return _key(other)
        if hasattr(other, "release") and hasattr(other, "public"):  # packaging's Version
            return _key(str(other))
        if isinstance(other, Iterable):
            return _key(".".join(str(item) for item in other))
        raise InvalidVersion(other)

    def _compare(self, other, method):
        try:
            mine, theirs = _key(self), self._other_key(other)
        except InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__


TorchVersion.__module__ = "torch.torch_version"
