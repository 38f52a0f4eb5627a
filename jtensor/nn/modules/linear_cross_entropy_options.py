"""PyTorch's ``torch.nn.modules.linear_cross_entropy_options``: the class PyTorch defines
here lives in jtensor's own files; the package's ``__init__`` gives it this module as its
home (see ``_HOMES``)."""

__all__ = []
