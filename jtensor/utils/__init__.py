"""``jtensor.utils``: ``checkpoint`` (and, later, ``data``)."""
