"""linalg.lstsq with a batch of A broadcast against B's: rank and singular values follow A."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((1, 3, 3), (2, 3, 3)),
        ((2, 1, 4, 3), (1, 5, 4, 2)),
        ((1, 4, 3), (4, 4, 2)),
        ((3, 4, 3), (1, 4, 2)),
        ((2, 4, 3), (2, 4)),
    ],
)
def test_rank_and_singular_values_keep_the_batch_of_a(driver, a_shape, b_shape):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    mine = jtensor.linalg.lstsq(jtensor.tensor(a), jtensor.tensor(b), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    for field in ("solution", "residuals", "rank", "singular_values"):
        m, t = getattr(mine, field), getattr(theirs, field)
        assert (tuple(m.shape), m.stride(), str(m.dtype)) == (
            tuple(t.shape),
            t.stride(),
            str(t.dtype),
        ), field
        np.testing.assert_allclose(m.cpu().numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


def test_a_rank_deficient_member_of_a_keeps_its_own_rank():
    a = torch.randn(2, 3, 3, dtype=torch.float64)
    a[1, :, 0] = 0  # the second matrix has rank 2
    b = torch.randn(1, 3, 2, dtype=torch.float64)
    theirs = torch.linalg.lstsq(a, b, driver="gelsd")
    mine = jtensor.linalg.lstsq(
        jtensor.tensor(a.numpy()), jtensor.tensor(b.numpy()), driver="gelsd"
    )
    assert mine.rank.tolist() == theirs.rank.tolist() == [3, 2]
    np.testing.assert_allclose(mine.solution.cpu().numpy(), theirs.solution.numpy(), rtol=1e-9)


@pytest.mark.parametrize(("a_shape", "b_shape"), [((4, 3), (2, 4, 2)), ((2, 2, 4, 3), (4, 2))])
def test_b_with_too_many_or_too_few_dims_is_refused(a_shape, b_shape):
    for lib in (jtensor, torch):
        with pytest.raises(RuntimeError, match=r"input.dim\(\) must be greater or equal"):
            lib.linalg.lstsq(lib.ones(a_shape), lib.ones(b_shape))
