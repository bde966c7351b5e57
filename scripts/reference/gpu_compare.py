#!/usr/bin/env python3
"""repro beside the strongest PyTorch a user would write, on the same GPU, models and batches (issue 44.5).

  scripts/reference/gpu_compare.py BENCH_JSON [BENCH_JSON ...] --modes eager,reduce-overhead,default
                                   [--only TEXT,TEXT] [--steps 30] [--warmup 5] [--deadline UNIX_SECONDS]
                                   [--device cuda] --out DIR

For each model that `repro bench` timed in the BENCH_JSON files (its resolved settings and precision are
there), bench_reference.py --fused --profile-step times PyTorch's version in one process per model: eager
with AdamW(fused=True), then torch.compile in the modes asked for ("default", and "reduce-overhead": its own
CUDA graphs), each with a profile of one step (kernels, the GPU's busy time, the gaps between kernels).
Prints a markdown table and keeps everything in DIR/gpu-compare.json, written after every model (so that a
deadline keeps what is done). MFU: 3 x repro's forward FLOPs per example x examples/s over the matrix-product
peak repro measured in the same bench (bench.json's peak_tflops), for both programs alike.
--deadline: no model starts after it, and a model's process is stopped there (its modes done so far kept).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_reference(bench_json, index, args, seconds):
    """The last JSON line bench_reference.py printed before it ended or was stopped after `seconds`."""
    command = [sys.executable, os.path.join(HERE, "bench_reference.py"), bench_json, str(index), "--fused",
               "--profile-step", "--modes", args.modes, "--steps", str(args.steps), "--warmup", str(args.warmup),
               "--device", args.device]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds)
        stdout, stderr, note = done.stdout, done.stderr, "" if done.returncode == 0 else f"exit {done.returncode}"
    except subprocess.TimeoutExpired as stopped:
        stdout = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else (stopped.stdout or "")
        stderr, note = "", f"stopped after {seconds:.0f} s"
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"modes": {}}
    if note:
        result["note"] = note + ("" if lines else ": " + " | ".join(stderr.strip().splitlines()[-3:]))
    return result


def mfu(ours, examples_per_s, peak):
    return 3 * ours["forward_flops_per_example"] * examples_per_s / 1e12 / peak if peak else 0.0


def table(rows):
    head = ("| model | dataset | prec | repro ms/step | repro MFU | mode | PyTorch ms/step | PyTorch MFU | repro speedup | "
            "compile s | kernels/step | GPU busy | mean gap µs |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    out = head
    for row in rows:
        ours, theirs, peak = row["repro"], row["pytorch"], row["peak_tflops"]
        repro = (f"{ours['train_ms_per_step']:.2f} ({ours.get('update', 'eager')}"
                 f"{', graphs' if ours.get('cuda_graphs') else ''})")
        if not theirs.get("modes"):
            out += (f"| {ours['model_config']} | {ours['dataset']} | {ours['precision']} | {repro} | "
                    f"{100 * ours['mfu']:.1f}% | - | {theirs.get('note', 'not run')} | | | | | | |\n")
        for mode, m in theirs.get("modes", {}).items():
            p = m.get("profile", {})
            busy = f"{100 * p['gpu_busy_ms'] / p['wall_ms']:.0f}%" if p.get("wall_ms") else "-"
            compile_s = f"{m['warmup_seconds']:.0f}" if mode != "eager" else "-"
            gap = f"{p['gap_mean_us']:.1f}" if "gap_mean_us" in p else "-"
            out += (f"| {ours['model_config']} | {ours['dataset']} | {ours['precision']} | {repro} | "
                    f"{100 * ours['mfu']:.1f}% | {mode} | {m['ms_per_step']:.2f} | "
                    f"{100 * mfu(ours, m['examples_per_s'], peak):.1f}% | "
                    f"{m['ms_per_step'] / ours['train_ms_per_step']:.2f}x | {compile_s} | {p.get('kernels', '-')} | "
                    f"{busy} | {gap} |\n")
        if theirs.get("note") and theirs.get("modes"):
            out += f"| | | | | | ({theirs['note']}) | | | | | | | |\n"
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_json", nargs="+")
    parser.add_argument("--modes", default="eager,reduce-overhead,default")
    parser.add_argument("--only", default="", help="only dataset/model rows containing one of these (A,B)")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--deadline", type=float, default=0, help="Unix time: start nothing after it")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wanted = [part for part in args.only.split(",") if part]
    rows = []
    for bench_json in args.bench_json:
        bench = json.load(open(bench_json))
        for index, ours in enumerate(bench["results"]):
            if wanted and not any(part in f"{ours['dataset']}/{ours['model_config']}" for part in wanted):
                continue
            left = args.deadline - time.time() if args.deadline else 3600
            if left < 10:
                rows.append({"repro": ours, "pytorch": {"note": "no time left"}, "peak_tflops": bench["peak_tflops"]})
                continue
            theirs = run_reference(bench_json, index, args, left)
            rows.append({"repro": ours, "pytorch": theirs, "peak_tflops": bench["peak_tflops"],
                         "environment": bench["environment"]})
            json.dump({"modes": args.modes, "rows": rows}, open(os.path.join(args.out, "gpu-compare.json"), "w"),
                      indent=2)
    first = json.load(open(args.bench_json[0]))
    env = first["environment"]
    print(f"\n{env.get('gpu_name') or env['device']}, driver {env.get('driver_version')}, CUDA {env.get('cuda_runtime')}, "
          f"repro {env['git_commit'][:8]} (LibTorch {env['libtorch']}), PyTorch "
          f"{next((r['pytorch'].get('torch') for r in rows if r['pytorch'].get('torch')), '?')}, "
          f"{args.steps} timed steps after {args.warmup}; MFU against {first['peak_tflops']:.0f} TFLOP/s "
          f"({first['peak_reference']})\n")
    print(table(rows))


if __name__ == "__main__":
    main()
