"""``torch.distributions.LKJCholesky``: the LKJ distribution over Cholesky factors of
correlation matrices, sampled with the onion method (as NumPyro and PyTorch do)."""

import math

from .._api import ops as J
from .._dtypes import finfo
from .._errors import TensorValueError
from .._size import Size
from . import constraints
from .beta import Beta
from .distribution import _EMPTY, Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """``LKJCholesky(dim, concentration=1.0, validate_args=None)``: each row ``i`` of a
    sample is ``sqrt(y_i) * u_i`` (``y_i`` a Beta draw, ``u_i`` uniform on the sphere from
    ``randn``) completed to unit norm on the diagonal."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise TensorValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # The Beta marginals of the onion method, one per row.
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = J.arange(
            self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device
        )
        offset = J.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_EMPTY):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = J.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(
            -1
        )
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # The first row is (1, 0, ..., 0): its normalisation divided 0 by 0.
        u_hypersphere[..., 0, :].fill_(0.0)
        w = J.sqrt(y) * u_hypersphere
        eps = finfo(w.dtype).tiny
        diag_elems = J.clamp(1 - J.sum(w**2, dim=-1), min=eps).sqrt()
        return w + J.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = J.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = J.sum(order * diag_elems.log(), dim=-1)
        # The normaliser (Lewandowski, Kurowicka and Joe, 2009), through mvlgamma.
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = J.lgamma(alpha) * dm1
        numerator = J.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
