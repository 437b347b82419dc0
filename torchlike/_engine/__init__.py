"""The engine: op registry, the one dispatch seam, autograd tape, functionalised views.

Note [Layers]: public namespaces -> Tensor -> dispatch.apply -> ops (pure JAX) -> jax/XLA.
Nothing above `dispatch` reads a tensor's array except the sync points in `_tensor.py`.
"""
