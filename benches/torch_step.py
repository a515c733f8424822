#!/usr/bin/env python3
"""PyTorch reference of the exact training step `mibound throughput` times.

Same configuration: x, y in R^20 from the correlated Gaussian with I = 4 nats (fresh batch each
step), critic separable f(x)^T g(y) (two MLPs 20 -> 256 -> 256 -> 32, ReLU), concat
h([x_i; y_j]) on all N^2 pairs (MLP 40 -> 256 -> 256 -> 1, ReLU; tiled as researchers write it),
or bilinear/CPC f(x)^T W g(y) (same MLPs, W 32 x 32); InfoNCE
log N + mean_i(S_ii - logsumexp_j S_ij) with S[i, j] = f(x_i, y_j); Adam, lr 5e-4; float32.
Prints one JSON line: {"tool": "torch", "steps_per_s": ..., ...}.

  python benches/torch_step.py --critic separable --batch 64 --threads 1 --steps 1000
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn


def mlp(inp, out, hidden=256, layers=2):
    mods, width = [], inp
    for _ in range(layers):
        mods += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    mods.append(nn.Linear(width, out))
    return nn.Sequential(*mods)


class Separable(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.f, self.g = mlp(d, 32), mlp(d, 32)

    def forward(self, x, y):
        return self.f(x) @ self.g(y).t()


class Bilinear(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.f, self.g = mlp(d, 32), mlp(d, 32)
        self.w = nn.Parameter(torch.empty(32, 32).uniform_(-1 / math.sqrt(32), 1 / math.sqrt(32)))

    def forward(self, x, y):
        return self.f(x) @ self.w @ self.g(y).t()


class Concat(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.h = mlp(2 * d, 1)

    def forward(self, x, y):
        n = x.shape[0]
        xi = x.unsqueeze(1).expand(n, n, x.shape[1])
        yj = y.unsqueeze(0).expand(n, n, y.shape[1])
        return self.h(torch.cat([xi, yj], dim=2).reshape(n * n, -1)).reshape(n, n)


def infonce(s):
    return s.diagonal().mean() - torch.logsumexp(s, dim=1).mean() + math.log(s.shape[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--critic", default="separable", choices=["separable", "concat", "bilinear"])
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    d, mi = 20, 4.0
    rho = math.sqrt(1 - math.exp(-2 * mi / d))
    critic = {"separable": Separable, "concat": Concat, "bilinear": Bilinear}[a.critic](d)
    opt = torch.optim.Adam(critic.parameters(), lr=5e-4)
    gen = torch.Generator().manual_seed(a.seed + 1)

    def step():
        x = torch.randn(a.batch, d, generator=gen)
        y = rho * x + math.sqrt(1 - rho * rho) * torch.randn(a.batch, d, generator=gen)
        loss = -infonce(critic(x, y))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(a.warmup):
        step()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    loss.item()
    secs = time.perf_counter() - t0
    print(json.dumps({"tool": "torch", "torch_version": torch.__version__, "critic": a.critic, "batch": a.batch,
                      "threads": a.threads, "steps": a.steps, "seconds": secs, "steps_per_s": a.steps / secs}))


if __name__ == "__main__":
    main()
