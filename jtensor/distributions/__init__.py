"""``torch.distributions``: the probability distributions policy-gradient and VAE code uses.

So far ``Categorical`` (``Categorical(probs)``, ``m.sample()``, ``m.log_prob(a)``, the REINFORCE
pattern of pytorch/examples) and ``Normal`` (``sample``, the reparameterised ``rsample``,
``log_prob``, ``entropy``), on the ``Distribution`` base with PyTorch's shapes (``batch_shape``,
``event_shape``, ``sample_shape``), sampling draw for draw as PyTorch's (``multinomial``,
``normal``, ``normal_``) and the same autograd graph through ``log_prob``.
"""

from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal

__all__ = ["Categorical", "Distribution", "Normal"]
