"""PyTorch's ``torch.nn.modules.fold``: the classes PyTorch defines here live in jtensor's
own files; the package's ``__init__`` gives them this module as their home (see ``_HOMES``)."""

__all__ = []
