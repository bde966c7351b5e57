#!/usr/bin/env python3
"""Times the eager PyTorch version (models.py) of one model that `repro bench` timed.

  bench_reference.py BENCH_JSON INDEX [--steps N] [--warmup N] [--device cpu|cuda] [--threads N] [--compile]
                     [--modes eager,default,reduce-overhead] [--fused] [--profile-step]

Reads the model's resolved settings from repro's bench.json (results[INDEX].settings),
builds the same architecture, and times training steps on synthetic data of the same
shape resident on the device, the way a PyTorch user would write the loop: AdamW
(decay / no-decay groups), bf16 autocast on CUDA, clip_grad_norm_, the same batch.
Prints one JSON object (params, ms/step, examples/s). With --compile, the same model is
then wrapped in torch.compile and timed again in the same process (compile_ms_per_step;
compile_seconds = the warm-up steps, which include the compilation).

The strongest loop a user would write on a GPU (scripts/device-check's bench phase):
--fused: AdamW(fused=True) (one kernel for the update; foreach clipping is PyTorch's default
  on CUDA), TF32 for float32 products as repro allows them, the precision repro resolved
  (bench.json's "precision", not re-derived).
--modes: in one process, in this order, "eager", "default" (torch.compile(model)) and
  "reduce-overhead" (torch.compile(model, mode="reduce-overhead"): its own CUDA graphs);
  each mode's ms/step and, for the compiled ones, the seconds of their warm-up (compilation).
  The compiled modes reuse each other's kernels from inductor's cache, so the second compiles faster.
--profile-step: after each mode's timing, torch.profiler around one more step: the kernels
  it launched, the GPU's busy time (the union of their intervals), and the gaps between them.
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F

from models import Classifier

SHAPES = {  # dataset -> (kind, channels, image size, classes)
    "cifar10": ("vit", 3, 32, 10), "cifar100": ("vit", 3, 32, 100), "svhn": ("vit", 3, 32, 10),
    "fashion_mnist": ("vit", 1, 28, 10), "imdb": ("text", 0, 0, 2), "rotten_tomatoes": ("text", 0, 0, 2),
    "ag_news": ("text", 0, 0, 4), "newsgroups": ("text", 0, 0, 20),
}


def build(result):
    s = result["settings"]
    kind, channels, image, classes = SHAPES[result["dataset"]]
    if s["model.attention.kind"] not in ("vanilla", "diff", "dgsa") or s["model.ffn.kind"] not in ("mlp", "swiglu"):
        raise SystemExit(f"models.py covers vanilla/diff/dgsa with mlp/swiglu, not {s['model.attention.kind']}")
    max_len = int(s["text.max_len"])
    positions = int(s["model.max_len"]) if kind == "vit" else (int(s["model.max_len"]) or max_len)
    vocab = int(s["text.max_vocab"]) or 60000
    model = Classifier(kind, classes, int(s["model.dim"]), int(s["model.depth"]), int(s["model.heads"]),
                       s["model.attention.kind"], s["model.ffn.kind"], float(eval(s["model.ffn.ratio"])),
                       float(s["model.dropout"]), patch=int(s["model.patch"]), channels=channels, image=image,
                       positions=positions, vocab=vocab)
    return model, kind, channels, image, classes, max_len, vocab


class Loop:
    """The training loop a PyTorch user would write for one bench.json result: AdamW with decay / no-decay groups
    (fused=True with `fused` on CUDA), bf16 autocast on CUDA (with `fused`: the precision repro resolved, bench.json's
    "precision"), clip_grad_norm_, batches drawn from a pool of synthetic data of the same shape on the device."""

    def __init__(self, result, device, fused=False):
        s = result["settings"]
        torch.manual_seed(0)
        self.model, kind, channels, image, classes, max_len, vocab = build(result)
        self.model.to(device).train()
        self.device, self.kind = device, kind
        self.params = sum(p.numel() for p in self.model.parameters())
        named = list(self.model.named_parameters())
        decays = [p.dim() >= 2 and "embed" not in n and "cls_token" not in n for n, p in named]
        betas = tuple(float(b) for b in s["train.betas"].strip("[]").split(","))
        self.extra = {"fused": True} if fused and device.type == "cuda" else {}
        self.optimizer = torch.optim.AdamW(
            [{"params": [p for (_, p), d in zip(named, decays) if d], "weight_decay": float(s["train.weight_decay"])},
             {"params": [p for (_, p), d in zip(named, decays) if not d], "weight_decay": 0.0}],
            lr=float(s["train.lr"]), betas=betas, eps=float(s["train.eps"]), **self.extra)
        self.batch, self.clip = int(s["train.batch_size"]), float(s["train.clip_norm"])
        self.bf16 = result.get("precision") == "bf16" if fused else (
            device.type == "cuda" and s["train.precision"] in ("auto", "bf16"))
        self.pool_size = 4 * self.batch
        if kind == "vit":
            self.pool = torch.randint(0, 256, (self.pool_size, channels, image, image), dtype=torch.uint8,
                                      device=device)
            self.mean = torch.full((1, channels, 1, 1), 0.5, device=device)
        else:
            self.pool = torch.randint(3, vocab, (self.pool_size, max_len), device=device)
        self.labels = torch.randint(0, classes, (self.pool_size,), device=device)
        self.forward = self.model  # or a torch.compile of it

    def step(self, i=0):
        idx = torch.randint(0, self.pool_size, (self.batch,), device=self.device)
        x = self.pool[idx]
        if self.kind == "vit":
            x = (x.float() / 255 - self.mean) / 0.25
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            logits = self.forward(x)
        loss = F.cross_entropy(logits.float(), self.labels[idx])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def timed(self, warmup, steps):
        """(warm-up seconds, timed seconds) of `warmup` then `steps` steps."""
        begin = time.perf_counter()
        for i in range(warmup):
            self.step(i)
        self.sync()
        start = time.perf_counter()
        for i in range(steps):
            self.step(i)
        self.sync()
        return start - begin, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_json")
    parser.add_argument("index", type=int)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--compile", action="store_true", help="also time torch.compile(model)")
    parser.add_argument("--modes", default="", help="eager,default,reduce-overhead (replaces --compile)")
    parser.add_argument("--fused", action="store_true", help="AdamW(fused=True), TF32, repro's resolved precision")
    parser.add_argument("--profile-step", action="store_true", help="profile one step of each mode")
    args = parser.parse_args()
    if args.modes:
        return modes_main(args)
    if args.threads:
        torch.set_num_threads(args.threads)
    result = json.load(open(args.bench_json))["results"][args.index]
    device = torch.device(args.device)
    loop = Loop(result, device)
    _, seconds = loop.timed(args.warmup, args.steps)
    out = {"model_config": result["model_config"], "dataset": result["dataset"], "params": loop.params,
           "torch": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
           "precision": "bf16" if loop.bf16 else "fp32", "train_ms_per_step": 1000 * seconds / args.steps,
           "train_examples_per_s": args.steps * loop.batch / seconds}
    if args.compile:
        loop.forward = torch.compile(loop.model)
        compile_seconds, seconds = loop.timed(args.warmup, args.steps)
        out.update({"compile_ms_per_step": 1000 * seconds / args.steps, "compile_seconds": compile_seconds})
    print(json.dumps(out))


def step_profile(step, sync, device):
    """Kernels of one step (after warm-up) from torch.profiler: count, GPU busy ms (union of kernel intervals),
    the step's wall ms, and the gaps between consecutive kernels (mean and largest, microseconds)."""
    from torch.profiler import ProfilerActivity, profile
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        begin = time.perf_counter()
        step(0)
        sync()
        wall = time.perf_counter() - begin
    kernels = sorted((e.time_range.start, e.time_range.end) for e in prof.events()
                     if e.device_type == torch.autograd.DeviceType.CUDA)
    busy, gaps, end = 0.0, [], None
    for start, stop in kernels:
        if end is not None and start > end:
            gaps.append(start - end)
        if end is None or start > end:
            busy += stop - start
            end = stop
        elif stop > end:
            busy += stop - end
            end = stop
    return {"kernels": len(kernels), "gpu_busy_ms": busy / 1000, "wall_ms": 1000 * wall,
            "gap_mean_us": sum(gaps) / len(gaps) if gaps else 0.0, "gap_max_us": max(gaps) if gaps else 0.0}


def modes_main(args):
    """--modes: eager and compiled modes timed in one process (see the module's doc)."""
    if args.threads:
        torch.set_num_threads(args.threads)
    result = json.load(open(args.bench_json))["results"][args.index]
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True  # as repro (train/precision.cpp: allow_tf32)
        torch.backends.cudnn.allow_tf32 = True
    loop = Loop(result, device, fused=args.fused)
    out = {"model_config": result["model_config"], "dataset": result["dataset"], "params": loop.params,
           "torch": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
           "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
           "precision": "bf16" if loop.bf16 else "fp32", "adamw": "fused" if loop.extra else "default", "modes": {}}
    for mode in [m for m in args.modes.split(",") if m]:
        if mode == "eager":
            loop.forward = loop.model
        elif mode in ("default", "reduce-overhead"):
            torch._dynamo.reset()
            loop.forward = torch.compile(loop.model, mode=None if mode == "default" else mode)
        else:
            raise SystemExit(f"--modes: unknown mode {mode!r} (eager, default, reduce-overhead)")
        warmup_seconds, seconds = loop.timed(args.warmup, args.steps)
        entry = {"ms_per_step": 1000 * seconds / args.steps, "examples_per_s": args.steps * loop.batch / seconds,
                 "warmup_seconds": warmup_seconds}
        if args.profile_step:
            entry["profile"] = step_profile(loop.step, loop.sync, device)
        out["modes"][mode] = entry
        print(json.dumps(out), flush=True)  # so far: a timeout keeps the modes done


if __name__ == "__main__":
    main()
