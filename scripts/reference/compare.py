#!/usr/bin/env python3
"""repro vs eager PyTorch, same models, batch and in-memory synthetic data, one run.

  scripts/reference/compare.py SPEC.yaml [--repro build/repro] [--steps N] [--warmup N]
                               [--device cpu|cuda] [--threads N] [--only TEXT] [--out DIR]
                               [--from-bench bench.json]   (reuse a repro bench run of the same spec)
                               [--compile]   (also torch.compile, timed in the same process as eager)

Runs `repro bench` on the spec (writing DIR/bench.json), then bench_reference.py for
each model it timed (vanilla/diff/dgsa with mlp/swiglu), and prints the ratio table
(speedup = PyTorch ms/step / repro ms/step) as markdown; DIR/compare.json keeps both.
Use /usr/bin/python3 where the first python3 on PATH has no torch.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("--repro", default="build/repro")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--only", default="", help="only dataset/model rows containing this text (A,B: either)")
    parser.add_argument("--out", default="compare")
    parser.add_argument("--from-bench", default="", help="reuse this bench.json instead of running repro bench")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile of each PyTorch model")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_intermixed_args()
    os.makedirs(args.out, exist_ok=True)
    bench_json = args.from_bench or os.path.join(args.out, "bench.json")
    command = [args.repro, "bench", args.spec, *args.overrides, "--steps", str(args.steps), "--warmup",
               str(args.warmup), "--device", args.device, "--out", bench_json]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.only and "," not in args.only:
        command += ["--only", args.only]
    if not args.from_bench:
        subprocess.run(command, check=True)
    bench = json.load(open(bench_json))
    device = bench["environment"]["device"].split(":")[0]
    rows = []
    wanted = [part for part in args.only.split(",") if part]  # --only A,B: rows containing A or B
    for index, ours in enumerate(bench["results"]):
        s = ours["settings"]
        if wanted and not any(part in f"{ours['dataset']}/{ours['model_config']}" for part in wanted):
            continue
        if s["model.attention.kind"] not in ("vanilla", "diff", "dgsa") or s["model.ffn.kind"] not in ("mlp", "swiglu"):
            continue
        reference = [sys.executable, os.path.join(HERE, "bench_reference.py"), bench_json, str(index), "--steps",
                     str(args.steps), "--warmup", str(args.warmup), "--device", device]
        if args.threads:
            reference += ["--threads", str(args.threads)]
        if args.compile:
            reference += ["--compile"]
        done = subprocess.run(reference, capture_output=True, text=True)
        if done.returncode != 0:  # say why (the last lines of its error), then stop like check=True would
            sys.stderr.write(f"{' '.join(reference)}: exit {done.returncode}\n" + "\n".join(done.stderr.splitlines()[-12:]) + "\n")
            raise SystemExit(1)
        theirs = json.loads(done.stdout)
        rows.append({"repro": ours, "pytorch": theirs})
        json.dump({"bench": bench, "rows": rows}, open(os.path.join(args.out, "compare.json"), "w"), indent=2)  # so far
    env = bench["environment"]
    print(f"\n{env['device']}, repro {env['git_commit'][:8]} (LibTorch {env['libtorch']}), "
          f"PyTorch {rows[0]['pytorch']['torch'] if rows else '?'}, threads {env['threads']}, "
          f"{args.steps} timed steps after {args.warmup}\n")
    compiled = args.compile and rows and "compile_ms_per_step" in rows[0]["pytorch"]
    extra_head = " torch.compile ms/step | speedup vs compile | compile s |" if compiled else ""
    print("| model | dataset | params repro / torch | prec | batch | repro ms/step | PyTorch ms/step | speedup |"
          + extra_head)
    print("|---|---|---|---|---|---|---|---|" + ("---|---|---|" if compiled else ""))
    for row in rows:
        ours, theirs = row["repro"], row["pytorch"]
        same = "" if ours["params"] == theirs["params"] else " (differ!)"
        extra = ""
        if compiled:
            extra = (f" {theirs['compile_ms_per_step']:.2f} | "
                     f"{theirs['compile_ms_per_step'] / ours['train_ms_per_step']:.2f}x | {theirs['compile_seconds']:.1f} |")
        print(f"| {ours['model_config']} | {ours['dataset']} | {ours['params']} / {theirs['params']}{same} | "
              f"{ours['precision']} | {ours['batch']} | {ours['train_ms_per_step']:.2f} | "
              f"{theirs['train_ms_per_step']:.2f} | {theirs['train_ms_per_step'] / ours['train_ms_per_step']:.2f}x |"
              + extra)
    json.dump({"bench": bench, "rows": rows}, open(os.path.join(args.out, "compare.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
