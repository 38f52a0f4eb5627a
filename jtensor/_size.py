"""``Size``: the tuple subclass PyTorch returns for shapes."""


class Size(tuple):
    """A tensor's shape; a tuple of ints that prints as ``torch.Size([2, 3])``.

    >>> Size([2, 3]).numel()
    6
    """

    __slots__ = ()

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


Size.__module__ = "jtensor"   # printed and pickled as the public jtensor.Size (torch.Size)
