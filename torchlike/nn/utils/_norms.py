"""Math shared by the weight/spectral norm reparametrizations (torch's _weight_norm, norm_except_dim)."""


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, kept broadcastable to ``v`` (dim=-1: whole tensor)."""
    import torchlike
    if dim == -1:
        return torchlike.norm(v, pow)
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    if not others:
        return v.abs()      # a 1-D tensor: the norm of each single element
    return torchlike.norm(v, pow, dim=others, keepdim=True)


def weight_norm_fn(v, g, dim=0):
    """``v * (g / ||v||)``, the norm taken over all dims but ``dim`` (torch._weight_norm)."""
    return v * (g / norm_except_dim(v, 2, dim))


def write_(dst, value):
    """``dst`` updated in place to ``value`` (torch's ``out=`` on a buffer), returned."""
    dst.copy_(value)
    return dst


def default_spectral_dim(module):
    """spectral_norm's default dim: 1 for ConvTranspose (its weight is in x out), else 0."""
    from .. import modules
    kinds = tuple(getattr(modules, n) for n in ('ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d')
                  if hasattr(modules, n))
    return 1 if kinds and isinstance(module, kinds) else 0
