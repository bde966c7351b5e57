"""Eager PyTorch versions of repro's models, for side-by-side timing only.

The same architecture, shapes and parameter counts as repro's `vit` / `text`
models with `vanilla`, `diff` or `dgsa` attention and `mlp` / `swiglu`
feed-forward (see src/models/): pre-norm blocks, LayerNorm, patch convolution
(ViT) or token embedding (text), learned positions, class token or mean pooling.
`bench_reference.py` checks the parameter count against `repro bench`'s.
Written as a PyTorch user would write it: eager modules, F.scaled_dot_product_attention
when the installed torch has it (2.x), explicit softmax otherwise (1.13).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


def attend(q, k, v, key_padding, dropout, training):
    """softmax(q k^T / sqrt(d)) v; q, k (B, H, N, d), v (B, H, N, dv); key_padding (B, N) bool or None."""
    if HAS_SDPA:
        mask = None if key_padding is None else (~key_padding)[:, None, None, :]
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout if training else 0.0)
    a = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if key_padding is not None:
        a = a.masked_fill(key_padding[:, None, None, :], float("-inf"))
    a = F.dropout(a.softmax(-1), dropout, training)
    return a @ v


class Vanilla(nn.Module):
    def __init__(self, dim, heads, dropout, **_):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x, key_padding):
        B, N, D = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.heads, -1).permute(2, 0, 3, 1, 4)  # 3 x (B, H, N, d)
        y = attend(q, k, v, key_padding, 0.0, self.training).transpose(1, 2).reshape(B, N, D)
        return F.dropout(self.out(y), self.dropout, self.training)


class Differential(nn.Module):
    """diff (lambda re-parameterised, h = heads / 2) or dgsa (sigmoid gate per token and head, h = heads)."""

    def __init__(self, dim, heads, dropout, kind, layer, q_residual, **_):
        super().__init__()
        self.kind, self.dropout, self.q_residual = kind, dropout, q_residual
        self.h = heads // 2 if kind == "diff" else heads
        self.d = dim // (2 * self.h)
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.head_norm = nn.RMSNorm(2 * self.d, eps=1e-5) if hasattr(nn, "RMSNorm") else RMSNorm(2 * self.d)
        if kind == "diff":
            self.lambda_init = 0.8 - 0.6 * math.exp(-0.3 * layer)
            self.lq1, self.lk1, self.lq2, self.lk2 = (nn.Parameter(torch.randn(self.d) * 0.1) for _ in range(4))
        else:
            self.lambda_init = 0.8
            self.gate = nn.Linear(dim, self.h)

    def forward(self, x, key_padding):
        B, N, D = x.shape
        q_full = self.q(x)
        q = q_full.view(B, N, 2 * self.h, self.d).transpose(1, 2)
        k = self.k(x).view(B, N, 2 * self.h, self.d).transpose(1, 2)
        v = self.v(x).view(B, N, self.h, 2 * self.d).transpose(1, 2)  # (B, h, N, 2d)
        o1 = attend(q[:, 0::2], k[:, 0::2], v, key_padding, 0.0, self.training)
        o2 = attend(q[:, 1::2], k[:, 1::2], v, key_padding, 0.0, self.training)
        if self.kind == "diff":
            lam = torch.exp((self.lq1 * self.lk1).sum()) - torch.exp((self.lq2 * self.lk2).sum()) + self.lambda_init
            o = o1 - lam * o2
        else:
            g = torch.sigmoid(self.gate(x)).transpose(1, 2).unsqueeze(-1)  # (B, h, N, 1)
            o = g * o1 - (1 - g) * o2
        o = self.head_norm(o) * (1 - self.lambda_init)
        y = self.out(o.transpose(1, 2).reshape(B, N, D))
        if self.q_residual:
            y = y + q_full
        return F.dropout(y, self.dropout, self.training)


class RMSNorm(nn.Module):  # torch < 2.4
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class FeedForward(nn.Module):
    def __init__(self, dim, ratio, kind, dropout):
        super().__init__()
        self.kind, self.dropout = kind, dropout
        if kind == "swiglu":
            half = round(ratio * dim / 2)
            self.fc1, self.fc2 = nn.Linear(dim, 2 * half), nn.Linear(half, dim)
        else:
            hidden = round(ratio * dim)
            self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x):
        if self.kind == "swiglu":
            a, b = self.fc1(x).chunk(2, -1)
            h = a * F.silu(b)
        else:
            h = F.gelu(self.fc1(x))
        return F.dropout(self.fc2(F.dropout(h, self.dropout, self.training)), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, dim, heads, attention, ffn, ratio, dropout, layer, q_residual):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        if attention == "vanilla":
            self.attn = Vanilla(dim, heads, dropout)
        else:
            self.attn = Differential(dim, heads, dropout, kind=attention, layer=layer, q_residual=q_residual)
        self.ffn = FeedForward(dim, ratio, ffn, dropout)

    def forward(self, x, key_padding=None):
        x = x + self.attn(self.norm1(x), key_padding)
        return x + self.ffn(self.norm2(x))


class Classifier(nn.Module):
    """ViT (images, class token) or text encoder (ids, mean pooling over real tokens)."""

    def __init__(self, kind, classes, dim, depth, heads, attention, ffn, ratio, dropout, patch=4, channels=3,
                 image=32, positions=100, vocab=60000):
        super().__init__()
        self.kind = kind
        q_residual = kind == "vit" and attention == "dgsa"
        if kind == "vit":
            self.patch_embed = nn.Conv2d(channels, dim, patch, stride=patch)
            self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
            positions = max(positions, (image // patch) ** 2 + 1)
        else:
            self.token_embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.pos_embed = nn.Parameter(torch.randn(1, positions, dim) * 0.02)
        self.blocks = nn.ModuleList(
            Block(dim, heads, attention, ffn, ratio, dropout, i, q_residual) for i in range(depth))
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        if self.kind == "vit":
            x = self.patch_embed(x).flatten(2).transpose(1, 2)  # (B, P, D)
            x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1)
            key_padding = None
        else:
            key_padding = x.eq(0)
            x = self.token_embed(x)
        x = x + self.pos_embed[:, : x.shape[1]]
        for block in self.blocks:
            x = block(x, key_padding)
        x = self.norm(x)
        if self.kind == "vit":
            return self.head(x[:, 0])
        real = (~key_padding).unsqueeze(-1).to(x.dtype)
        return self.head((x * real).sum(1) / real.sum(1).clamp_min(1))
