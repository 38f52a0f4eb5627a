"""Forward-mode AD's machinery (``jtensor.autograd.forward_ad`` is its public API).

- ``tangents``: where a tensor's tangent lives (``Tensor._fw_grads``: ``{level: tangent}``),
  looking a view's tangent up through its base, giving a tensor a tangent with its own
  layout (PyTorch's "same metadata" rule), and the in-place update of a tangent.
- ``rules``: how one op call's output tangents are computed: the direct rules (element-wise,
  linear and multilinear ops, the common activations, softmax, norms) and the generic rule
  derived from the op's reverse-mode formula.
- ``level``: a dual level, the transform that the dispatcher hands every op call while it is
  open (``_dispatch.push_transform``).
"""
