#!/usr/bin/env python3
"""Runs per minute with K runs on one GPU at once (issues 44.5 and 56), two ways side by side.

  scripts/reference/runs_per_minute.py --repro build-device/repro SPEC [--profile P] [--datasets D] [--rows R]
      [--ks 1,4,8,16] [--modes lanes,processes] [--steps 100] [--warmup 10] [--eval-batches 4] [--run-steps 2830]
      [--epochs 10] [--eval-examples 9796] [--device cuda] [--deadline UNIX_SECONDS] --out DIR [KEY=VALUE ...]

For each K and mode:
  lanes      one `repro bench SPEC ... --lanes K` process: K models on K threads, each on its own CUDA stream with
             its own graphs, as `repro run --lanes K` trains K runs (run/executor.h);
  processes  K processes of `repro bench SPEC ... --start-at T` (T a few seconds ahead, so that every process has
             warmed up and captured its graphs, and all time the same seconds), each with cores / K threads, as
             `repro run --runs-per-device K` starts K runs.
From the step time of one run under that load and its share of the evaluation rate, a run's time is estimated as
    run_steps x step + epochs x eval_examples / evaluation rate
(defaults: Table 2's 20 Newsgroups paper protocol, 2,830 steps and 9,796 texts evaluated per epoch, 10 epochs),
and runs per minute = K x 60 / the mean of those estimates. Data loading, tokenizing, checkpoints and start-up
are not in it: an upper bound for whole runs, measured on the parts that scale with K. Prints a markdown table;
DIR/runs-per-minute.json keeps every bench.json figure. --deadline: no K starts that would not end before it
(K = 1's wall time times a margin is the guide).
"""
import argparse
import json
import os
import subprocess
import time


def bench_command(args, k, threads, path, extra):
    command = [args.repro, "bench", args.spec, *args.overrides, "--steps", str(args.steps), "--warmup",
               str(args.warmup), "--eval-batches", str(args.eval_batches), "--device", args.device, "--threads",
               str(threads), "--out", path, *extra]
    for flag, value in (("--profile", args.profile), ("--datasets", args.datasets), ("--rows", args.rows)):
        if value:
            command += [flag, value]
    return command


def wait_all(args, procs):
    """Each (process, bench.json) waited for until the deadline; their results (None for one that failed)."""
    results = []
    for proc, path in procs:
        left = max(1.0, (args.deadline - time.time()) if args.deadline else 600)
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        results.append(json.load(open(path))["results"][0] if proc.returncode == 0 and os.path.exists(path) else None)
    return results


def bench_wave(args, k, mode, out):
    """One wave: K lanes in one process, or K processes started together. Per run: its step time under the load
    and its share of the evaluation rate (a list of K dicts, or Nones for failures), the wave's wall time and the
    LibTorch threads of each run."""
    cores = os.cpu_count() or 1
    threads = max(1, cores // k)
    begin = time.time()
    if mode == "lanes":
        path = os.path.join(out, f"lanes{k}.json")
        log = open(os.path.join(out, f"lanes{k}.log"), "w")
        proc = subprocess.Popen(bench_command(args, k, threads, path, ["--lanes", str(k)]), stdout=log,
                                stderr=subprocess.STDOUT)
        (result,) = wait_all(args, [(proc, path)])
        if result is None:
            return [None] * k, time.time() - begin, threads
        per_run = dict(result, train_examples_per_s=result["train_examples_per_s"] / k, mfu=result["mfu"] / k,
                       eval_examples_per_s=result["eval_examples_per_s"] / k)
        return [per_run] * k, time.time() - begin, threads
    lead = 10 + k  # seconds for K processes to load LibTorch, build the model, warm up and capture
    start_at = time.time() + lead
    procs = []
    for i in range(k):
        path = os.path.join(out, f"k{k}-{i}.json")
        log = open(os.path.join(out, f"k{k}-{i}.log"), "w")
        command = bench_command(args, k, threads, path, ["--start-at", f"{start_at:.3f}"])
        procs.append((subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT), path))
    return wait_all(args, procs), time.time() - begin, threads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("overrides", nargs="*")
    parser.add_argument("--repro", default="build/repro")
    parser.add_argument("--profile", default="")
    parser.add_argument("--datasets", default="")
    parser.add_argument("--rows", default="")
    parser.add_argument("--ks", default="1,4,8,16")
    parser.add_argument("--modes", default="lanes,processes")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--eval-batches", type=int, default=4)
    parser.add_argument("--run-steps", type=int, default=2830)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--eval-examples", type=int, default=9796)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--deadline", type=float, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_intermixed_args()
    os.makedirs(args.out, exist_ok=True)
    waves, first_wall = [], None
    for mode in [m for m in args.modes.split(",") if m]:
        if mode not in ("lanes", "processes"):
            parser.error(f"--modes: got '{mode}', expected lanes or processes")
        for k in [int(k) for k in args.ks.split(",") if k]:
            if args.deadline and first_wall and time.time() + 1.5 * first_wall + 0.5 * k > args.deadline:
                waves.append({"mode": mode, "k": k, "note": "not started: no time left"})
                continue
            results, wall, threads = bench_wave(args, k, mode, args.out)
            first_wall = first_wall or wall
            done = [r for r in results if r]
            wave = {"mode": mode, "k": k, "threads_per_run": threads, "wall_seconds": wall, "finished": len(done),
                    "results": done}
            if done:
                run_seconds = [args.run_steps * r["train_ms_per_step"] / 1000 +
                               args.epochs * args.eval_examples / max(r["eval_examples_per_s"], 1e-9) for r in done]
                wave.update({
                    "step_ms_mean": sum(r["train_ms_per_step"] for r in done) / len(done),
                    "train_examples_per_s_total": sum(r["train_examples_per_s"] for r in done),
                    "run_seconds_mean": sum(run_seconds) / len(run_seconds),
                    "runs_per_minute": len(done) * 60 / (sum(run_seconds) / len(run_seconds)),
                    "mfu_total": sum(r["mfu"] for r in done),
                    "started_late_max_s": max(r.get("started_late_s", 0) for r in done),
                    "cuda_graphs": all(r.get("cuda_graphs") for r in done),
                })
            waves.append(wave)
            json.dump({"args": vars(args), "waves": waves},
                      open(os.path.join(args.out, "runs-per-minute.json"), "w"), indent=2)
    model = next((w["results"][0]["model_config"] + " / " + w["results"][0]["dataset"] for w in waves
                  if w.get("results")), "?")
    print(f"\nruns per minute, {model}: {args.run_steps} steps + {args.epochs} x {args.eval_examples} texts "
          f"evaluated per run, estimated from {args.steps} timed steps per run (K lanes in one process, or K "
          f"processes)\n")
    print("| mode | K | threads/run | step ms (mean) | train ex/s (all) | MFU (all) | est. s/run | runs/min | graphs | "
          "late s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for w in waves:
        if "runs_per_minute" not in w:
            print(f"| {w['mode']} | {w['k']} | | {w.get('note', 'failed: see its .log')} | | | | | | |")
            continue
        print(f"| {w['mode']} | {w['k']} | {w['threads_per_run']} | {w['step_ms_mean']:.2f} | "
              f"{w['train_examples_per_s_total']:.0f} | {100 * w['mfu_total']:.1f}% | {w['run_seconds_mean']:.1f} | "
              f"{w['runs_per_minute']:.2f} | {'yes' if w['cuda_graphs'] else 'no'} | {w['started_late_max_s']:.1f} |")


if __name__ == "__main__":
    main()
