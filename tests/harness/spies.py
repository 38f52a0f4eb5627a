"""Whether a fast path took a call: ``taken = fast_path_spy(monkeypatch, module, name)``
wraps ``module.name`` (a function returning None when it declines) so that each call appends
whether it returned something."""


def fast_path_spy(monkeypatch, module, name):
    taken = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(module, name, spy)
    return taken
