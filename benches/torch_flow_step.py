#!/usr/bin/env python3
"""PyTorch reference of the flow-Gaussianisation training step that
`cargo run --release --example flows_throughput` times (mibound::flows).

Same model: two flows on x, y in R^20 (20-d correlated Gaussian, I = 4 nats, y -> y^3), each
Affine -> SinhArcsinh -> TanhSum(8) -> Affine -> blocks x [full Mixing W (log|det W|),
RealNVP affine coupling with MLP 10 -> 64 -> 64 -> 20 (tanh), s = 3 tanh(s_raw / 3), alternating
halves] -> Affine; joint Gaussian base with per-coordinate correlations rho_k = tanh(theta_k);
maximise the mean log-likelihood with Adam (lr 1e-3, gradient norm clipped at 50); float64,
batch 256 drawn from 16384 fixed samples with shuffled epochs; one thread.
Prints one JSON line: {"tool": "torch", "steps_per_s": ...}.

  python3 benches/torch_flow_step.py --steps 500 --batch 256 --blocks 4 --threads 1
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn

LN2 = math.log(2.0)
LN2PI = math.log(2.0 * math.pi)


def log_cosh(w):
    a = w.abs()
    return a + torch.log1p(torch.exp(-2.0 * a)) - LN2


class Affine(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.s = nn.Parameter(torch.zeros(d))
        self.b = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return x * self.s.exp() + self.b, self.s.sum().expand(x.shape[0])


class SinhArcsinh(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ld = nn.Parameter(torch.zeros(d))
        self.eps = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        w = self.ld.exp() * torch.asinh(x) - self.eps
        ld = self.ld + log_cosh(w) - 0.5 * torch.log1p(x * x)
        return torch.sinh(w), ld.sum(1)


class TanhSum(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.alpha = nn.Parameter(torch.zeros(d))
        self.a = nn.Parameter(torch.full((d, k), math.log(0.1)))
        self.b = nn.Parameter(torch.zeros(d, k))
        self.c = nn.Parameter(torch.linspace(-2, 2, k).repeat(d, 1))

    def forward(self, x):
        ea, eb = self.a.exp(), self.b.exp()
        t = torch.tanh(eb * (x.unsqueeze(-1) - self.c))
        z = self.alpha.exp() * x + (ea * t).sum(-1)
        g = self.alpha.exp() + (ea * eb * (1 - t * t)).sum(-1)
        return z, g.log().sum(1)


class Mixing(nn.Module):
    def __init__(self, d):
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(d, d, dtype=torch.float64))
        self.w = nn.Parameter(q)

    def forward(self, x):
        return x @ self.w.T, torch.linalg.slogdet(self.w)[1].expand(x.shape[0])


class Coupling(nn.Module):
    def __init__(self, d, hidden, flip, clamp=3.0):
        super().__init__()
        h = d // 2
        self.cond = list(range(d - h, d)) if flip else list(range(h))
        self.trans = list(range(d - h)) if flip else list(range(h, d))
        layers, width = [], len(self.cond)
        for w in hidden:
            layers += [nn.Linear(width, w), nn.Tanh()]
            width = w
        last = nn.Linear(width, 2 * len(self.trans))
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        self.net = nn.Sequential(*layers, last)
        self.clamp = clamp

    def forward(self, x):
        out = self.net(x[:, self.cond])
        nb = len(self.trans)
        s = self.clamp * torch.tanh(out[:, :nb] / self.clamp)
        z = x.clone()
        z[:, self.trans] = x[:, self.trans] * s.exp() + out[:, nb:]
        return z, s.sum(1)


class Flow(nn.Module):
    def __init__(self, d, blocks, hidden, k):
        super().__init__()
        layers = [Affine(d), SinhArcsinh(d), TanhSum(d, k), Affine(d)]
        for b in range(blocks):
            layers += [Mixing(d), Coupling(d, hidden, b % 2 == 1)]
        layers.append(Affine(d))
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        ld = torch.zeros(x.shape[0], dtype=x.dtype)
        for layer in self.layers:
            x, l = layer(x)
            ld = ld + l
        return x, ld


class Joint(nn.Module):
    def __init__(self, d, blocks, hidden, k):
        super().__init__()
        self.fx = Flow(d, blocks, hidden, k)
        self.fy = Flow(d, blocks, hidden, k)
        self.theta = nn.Parameter(torch.zeros(d))

    def forward(self, x, y):
        zx, lx = self.fx(x)
        zy, ly = self.fy(y)
        r = torch.tanh(self.theta)
        q = (1 - r) * (1 + r)
        qq = zx * zx - 2 * r * zx * zy + zy * zy
        base = (-LN2PI - 0.5 * q.log() - qq / (2 * q)).sum(1)
        return (base + lx + ly).mean()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    d, n, mi = 20, 16384, 4.0
    rho = math.sqrt(1 - math.exp(-2 * mi / d))
    x = torch.randn(n, d, dtype=torch.float64)
    y = (rho * x + math.sqrt(1 - rho * rho) * torch.randn(n, d, dtype=torch.float64)) ** 3
    x, y = (x - x.mean(0)) / x.std(0), (y - y.mean(0)) / y.std(0)
    model = Joint(d, a.blocks, [64, 64], 8).double()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    order, cursor = torch.randperm(n), 0

    def step():
        nonlocal order, cursor
        if cursor + a.batch > n:
            order, cursor = torch.randperm(n), 0
        idx = order[cursor:cursor + a.batch]
        cursor += a.batch
        opt.zero_grad(set_to_none=True)
        loss = -model(x[idx], y[idx])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 50.0)
        opt.step()
        return loss.item()

    for _ in range(20):
        step()
    t = time.perf_counter()
    for _ in range(a.steps):
        step()
    secs = time.perf_counter() - t
    n_params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"tool": "torch", "steps_per_s": round(a.steps / secs, 2),
                      "ms_per_step": round(1e3 * secs / a.steps, 3), "batch": a.batch,
                      "blocks": a.blocks, "params": n_params, "steps": a.steps,
                      "torch": torch.__version__, "threads": a.threads}))


if __name__ == "__main__":
    main()
