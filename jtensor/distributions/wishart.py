"""``torch.distributions.Wishart``: distributions of scatter matrices, parameterised by the
degrees of freedom and one of covariance, precision or its lower Cholesky factor."""

import math
import warnings
from numbers import Number

from .. import linalg
from .._api import broadcast_shapes
from .._api import ops as J
from .._dtypes import finfo
from .._errors import TensorValueError
from .._size import Size
from . import constraints
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .chi2 import Chi2
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: the derivative of ``mvlgamma(x, p)``."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    steps = J.arange(p, dtype=x.dtype, device=x.device).div(2).expand(x.shape + (-1,))
    return J.digamma(x.unsqueeze(-1) - steps).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """``Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
    validate_args=None)``: ``rsample`` is Bartlett's decomposition (chi-square diagonal from
    the gamma sampler, ``randn`` below it), redrawing singular samples as PyTorch does."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):  # fmt: skip
        given = (
            (covariance_matrix is not None)
            + (scale_tril is not None)
            + (precision_matrix is not None)
        )
        if given != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise TensorValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, Number):
            batch_shape = Size(param.shape[:-2])
            self.df = J.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise TensorValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}."
            )
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        # Bartlett: the i-th diagonal entry squared is Chi2(df - i).
        steps = J.arange(
            self._event_shape[-1],
            dtype=self._unbroadcasted_scale_tril.dtype,
            device=self._unbroadcasted_scale_tril.device,
        )
        return Chi2(df=self.df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._event_shape = self._event_shape
        new._dist_chi2 = new._chi2(batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        identity = J.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return J.cholesky_solve(identity, L).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            V.pow(2) + J.einsum("...i,...j->...ij", diag_V, diag_V)
        )

    def _bartlett_sampling(self, sample_shape=_EMPTY):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1
        )
        i, j = J.tril_indices(p, p, offset=-1)
        noise[..., i, j] = J.randn(
            Size(sample_shape) + self._batch_shape + (int(p * (p - 1) / 2),),
            dtype=noise.dtype,
            device=noise.device,
        )
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=_EMPTY, max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # PyTorch reads the support check as "is singular" here (a known inversion in its
        # code): the redraws below happen for the samples that ARE positive definite.
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                # (A copy of the mask: it changes below, and autograd keeps the index.)
                sample[is_singular.clone()] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not bool(is_singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (
            -nu * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            - J.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - J.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (
            (p + 1) * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            + J.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _log_2 * p) + J.mvlgamma(
            y + (p + 1) / 2, p=p
        )
