#!/usr/bin/env python3
"""Independent Adam trajectory for tests/optim_adam.rs (pure Python, float64).

Adam as in Kingma & Ba (2015), Algorithm 1, with torch.optim.Adam's placement of epsilon
(denominator sqrt(v)/sqrt(1-b2^t) + eps), L2 weight decay added to the gradient, and global-norm
clipping as torch.nn.utils.clip_grad_norm_ (scale max/(norm+1e-6) when norm > max).
The gradient at step t is that of f(p) = sum(c_i * p_i^2) + sum(p_i), i.e. 2 c_i p_i + 1.
"""
import math

def run(lr, b1, b2, eps, wd, max_norm, steps=5):
    p = [0.5, -1.5, 2.0]
    c = [1.0, 3.0, 0.25]
    m = [0.0] * 3
    v = [0.0] * 3
    for t in range(1, steps + 1):
        g = [2 * ci * pi + 1 for ci, pi in zip(c, p)]
        norm = math.sqrt(sum(x * x for x in g))
        if max_norm is not None and norm > max_norm:
            g = [x * max_norm / (norm + 1e-6) for x in g]
        g = [x + wd * pi for x, pi in zip(g, p)]
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        for i in range(3):
            denom = math.sqrt(v[i]) / math.sqrt(1 - b2 ** t) + eps
            p[i] -= lr / (1 - b1 ** t) * m[i] / denom
    return p

print("plain", ["%.15f" % x for x in run(0.1, 0.9, 0.999, 1e-8, 0.0, None)])
print("decay_clip", ["%.15f" % x for x in run(0.05, 0.8, 0.99, 1e-6, 0.1, 1.0)])
