"""``AdaptiveLogSoftmaxWithLoss``: the efficient softmax approximation of Grave et al. (2016)
for large vocabularies, with PyTorch's parameters, draws, outputs and graph.

The classes are split by ``cutoffs`` into a frequent shortlist and tail clusters. The head
(a ``Linear`` to ``shortlist + n_clusters`` logits) scores the shortlist and one entry per
cluster; each cluster has a two-layer projection (``in_features -> in_features //
div_value**(i+1) -> cluster size``). A target's log-probability is the head's for it (or for
its cluster) plus, in a cluster, the cluster's own log-softmax at the target. The forward
uses the same ops in the same order as PyTorch's (so the graph's nodes are PyTorch's).
"""

import collections
import itertools

from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorValueError
from .._functional.activation import log_softmax
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax, as ``torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes,
    cutoffs, div_value=4.0, head_bias=False)``. Called with ``(input, target)`` it returns
    ``(output, loss)``: each target's log-probability and the mean negative log-likelihood;
    ``log_prob(input)`` gives all ``n_classes`` log-probabilities and ``predict(input)`` the
    most probable class.

    >>> import jtensor as torch
    >>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 7])
    >>> out = asm(torch.randn(3, 16), torch.tensor([0, 5, 9]))
    >>> out.output.shape, out.loss.shape
    (torch.Size([3]), torch.Size([]))
    """

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        div_value=4.0,
        head_bias=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise TensorValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise TensorValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, size, bias=False, **kw),
                )
            )

    def reset_parameters(self):
        """Draw the head's and the clusters' weights again (``Linear``'s init)."""
        self.head.reset_parameters()
        for first, second in self.tail:
            first.reset_parameters()
            second.reset_parameters()

    def forward(self, input_, target_):
        """``(output, loss)`` for ``input_`` ``(N, in_features)`` with ``target_`` ``(N,)``,
        or ``(in_features,)`` with a 0-d target."""
        dims = target_.dim()
        if dims == 1:
            if input_.size(0) != target_.size(0):
                raise TensorRuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.dim() != 2:
                raise TensorRuntimeError(
                    f"1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        elif dims == 0:
            if input_.dim() != 1:
                raise TensorRuntimeError(
                    f"0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input_.size()}"
                )
        else:
            raise TensorRuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = dims > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch = target.size(0)
        output = input.new_zeros(batch)
        gather_index = target.new_empty(batch)
        used = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(itertools.pairwise(bounds)):
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:  # shortlist: the head scores the target itself
                gather_index.index_copy_(0, rows, target[mask])
            else:  # a cluster: the head scores the cluster, the cluster the target
                relative = target[mask] - low
                cluster_out = self.tail[i - 1](input.index_select(0, rows))
                gather_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                local = log_softmax(cluster_out, dim=1).gather(1, relative.unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            used += rows.numel()
        if used != batch:
            raise TensorRuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        """All ``n_classes`` log-probabilities from the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start, stop) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[
                :, self.shortlist_size + i
            ].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of every class, ``(N, n_classes)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (``log_prob(input).argmax(1)``, computing the
        clusters only for rows whose head picks a cluster)."""
        head_output = self.head(input)
        output = J.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return J.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[outside], head_output[outside])
        output[outside] = J.argmax(log_prob, dim=1)
        return output
