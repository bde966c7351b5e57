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
    s = result["settings"]
    device = torch.device(args.device)
    torch.manual_seed(0)
    model, kind, channels, image, classes, max_len, vocab = build(result)
    model.to(device).train()
    params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "embed" not in n and "cls_token" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "embed" not in n and "cls_token" not in n)]
    betas = tuple(float(b) for b in s["train.betas"].strip("[]").split(","))
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": float(s["train.weight_decay"])},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=float(s["train.lr"]), betas=betas, eps=float(s["train.eps"]))
    batch, clip = int(s["train.batch_size"]), float(s["train.clip_norm"])
    bf16 = device.type == "cuda" and s["train.precision"] in ("auto", "bf16")
    pool_size = 4 * batch
    if kind == "vit":
        pool = torch.randint(0, 256, (pool_size, channels, image, image), dtype=torch.uint8, device=device)
        mean = torch.full((1, channels, 1, 1), 0.5, device=device)
    else:
        pool = torch.randint(3, vocab, (pool_size, max_len), device=device)
    labels = torch.randint(0, classes, (pool_size,), device=device)

    forward = model

    def step(i):
        idx = torch.randint(0, pool_size, (batch,), device=device)
        x = pool[idx]
        if kind == "vit":
            x = (x.float() / 255 - mean) / 0.25
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = forward(x)
        loss = F.cross_entropy(logits.float(), labels[idx])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    def timed():  # (warm-up seconds, timed seconds)
        begin = time.perf_counter()
        for i in range(args.warmup):
            step(i)
        sync()
        start = time.perf_counter()
        for i in range(args.steps):
            step(i)
        sync()
        return start - begin, time.perf_counter() - start

    _, seconds = timed()
    out = {"model_config": result["model_config"], "dataset": result["dataset"], "params": params,
           "torch": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
           "precision": "bf16" if bf16 else "fp32", "train_ms_per_step": 1000 * seconds / args.steps,
           "train_examples_per_s": args.steps * batch / seconds}
    if args.compile:
        forward = torch.compile(model)
        compile_seconds, seconds = timed()
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
    s = result["settings"]
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True  # as repro (train/precision.cpp: allow_tf32)
        torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(0)
    model, kind, channels, image, classes, max_len, vocab = build(result)
    model.to(device).train()
    params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "embed" not in n and "cls_token" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "embed" not in n and "cls_token" not in n)]
    betas = tuple(float(b) for b in s["train.betas"].strip("[]").split(","))
    extra = {"fused": True} if args.fused and device.type == "cuda" else {}
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": float(s["train.weight_decay"])},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=float(s["train.lr"]), betas=betas, eps=float(s["train.eps"]), **extra)
    batch, clip = int(s["train.batch_size"]), float(s["train.clip_norm"])
    bf16 = result.get("precision") == "bf16" if args.fused else (
        device.type == "cuda" and s["train.precision"] in ("auto", "bf16"))
    pool_size = 4 * batch
    if kind == "vit":
        pool = torch.randint(0, 256, (pool_size, channels, image, image), dtype=torch.uint8, device=device)
        mean = torch.full((1, channels, 1, 1), 0.5, device=device)
    else:
        pool = torch.randint(3, vocab, (pool_size, max_len), device=device)
    labels = torch.randint(0, classes, (pool_size,), device=device)
    forward = model

    def step(i):
        idx = torch.randint(0, pool_size, (batch,), device=device)
        x = pool[idx]
        if kind == "vit":
            x = (x.float() / 255 - mean) / 0.25
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = forward(x)
        loss = F.cross_entropy(logits.float(), labels[idx])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    out = {"model_config": result["model_config"], "dataset": result["dataset"], "params": params,
           "torch": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
           "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
           "precision": "bf16" if bf16 else "fp32", "adamw": "fused" if extra else "default", "modes": {}}
    for mode in [m for m in args.modes.split(",") if m]:
        if mode == "eager":
            forward = model
        elif mode in ("default", "reduce-overhead"):
            torch._dynamo.reset()
            forward = torch.compile(model, mode=None if mode == "default" else mode)
        else:
            raise SystemExit(f"--modes: unknown mode {mode!r} (eager, default, reduce-overhead)")
        begin = time.perf_counter()
        for i in range(args.warmup):
            step(i)
        sync()
        start = time.perf_counter()
        for i in range(args.steps):
            step(i)
        sync()
        seconds = time.perf_counter() - start
        entry = {"ms_per_step": 1000 * seconds / args.steps, "examples_per_s": args.steps * batch / seconds,
                 "warmup_seconds": start - begin}
        if args.profile_step:
            entry["profile"] = step_profile(step, sync, device)
        out["modes"][mode] = entry
        print(json.dumps(out), flush=True)  # so far: a timeout keeps the modes done


if __name__ == "__main__":
    main()
