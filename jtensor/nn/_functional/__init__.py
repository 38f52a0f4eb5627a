"""The pieces of ``jtensor.nn.functional``, by family; each lists its names in ``__all__``."""
