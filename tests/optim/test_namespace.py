"""``torch.optim``'s namespace as PyTorch's: the same public and private names (programs print
``dir(torch.optim)``), and ``torch.optim._functional`` with each optimizer's functional form."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def test_dir_of_optim_is_pytorchs():
    def names(lib):
        return [n for n in dir(lib.optim) if not n.startswith("__")]

    assert names(jtensor) == names(torch)


def test_functional_forms_are_importable_and_update_in_place():
    import torch.optim._functional as theirs

    import jtensor.optim._functional as mine

    assert [n for n in dir(mine) if not n.startswith("_") and n != "Tensor"] == \
        [n for n in dir(theirs) if not n.startswith("_") and n not in ("Tensor", "math")]
    p = jtensor.ones(3)
    mine.sgd([p], [jtensor.full((3,), 2.0)], [None], weight_decay=0, momentum=0, lr=0.5,
             dampening=0, nesterov=False, maximize=False)
    assert p.tolist() == [0.0, 0.0, 0.0]
