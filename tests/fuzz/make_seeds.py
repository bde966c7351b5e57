#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Run from anywhere: python3 tests/fuzz/make_seeds.py. Each seed is a small valid
input in the target's input format (see the comment at the top of each
fuzz_*.cpp), so the fuzzer starts from inputs that reach deep into the readers.
"""
import bz2
import gzip
import io
import json
import lzma
import pathlib
import struct
import tarfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def put(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def gz(data):
    return gzip.compress(data, mtime=0)


def tar(members, mode):
    """A tar archive, compressed by `mode` ("w", "w:gz", "w:xz", "w:bz2") with fixed timestamps."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            archive.addfile(info, io.BytesIO(data))
    compress = {"w": lambda b: b, "w:gz": gz, "w:xz": lzma.compress, "w:bz2": bz2.compress}[mode]
    return compress(buffer.getvalue())


def write_dictionary(target, tokens):
    """tests/fuzz/<target>.dict in libFuzzer's format (quotes, backslashes and newlines escaped)."""
    escape = lambda t: t.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\x0A")
    (HERE / f"{target}.dict").write_text("".join(f'"{escape(t)}"\n' for t in tokens))


def other_dictionaries():
    """paper.dict and report.dict: the field names and values these readers look for."""
    datasets = ["cifar10", "cifar100", "fashion_mnist", "svhn", "rotten_tomatoes", "imdb", "ag_news", "newsgroups"]
    metrics = ["test_acc", "val_acc", "train_acc", "test_loss", "val_loss", "train_loss", "params"]
    write_dictionary("paper", ["tables", "table", "experiment", "metric", "n", "cells", "row", "column", "mean",
                               "std", "printed", ": ", "- ", "{", "}", "[", "]", ", ", "\n", ".nan", ".inf", "-1",
                               "1e300", "3.77M"] + datasets + metrics)
    fields = ["experiment", "profile", "runs", "dir", "dataset", "model_config", "row_index", "seed", "status",
              "complete", "diverged", "failed", "selected", "final", "epoch", "epochs_run", "epochs_planned", "data",
              "partial", "notes", "selection", "rule", "best_val", "message", "wall_seconds"] + metrics
    write_dictionary("report", [f'"{f}"' for f in fields] + [
        ": ", ", ", "{", "}", "[", "]", "null", "true", "1e308", "-0", "nan", "inf", "../", "\n",
        "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds"])


def spec_seeds():
    for path in sorted((ROOT / "experiments").rglob("*.yaml")):
        if "paper" in path.parts:
            continue
        put("spec", path.stem, path.read_bytes())
    smoke = (ROOT / "experiments" / "smoke.yaml").read_bytes()
    put("spec", "smoke-overrides", smoke + b"\0train.epochs=1\nmodel.heads=4\n--set train.lr=1e-3,2e-3\n--seeds 0-2\n")
    table1 = (ROOT / "experiments" / "table1.yaml").read_bytes()
    put("spec", "table1-profile", table1 + b"\0--profile smoke\ndata.train_limit=64\n")


def idx_seeds():
    images = struct.pack(">IIII", 2051, 2, 3, 3) + bytes(range(18))
    labels = struct.pack(">II", 2049, 3) + bytes([0, 9, 4])
    ten_classes = (10 - 1) << 1  # byte 0: labels, 10 classes
    put("idx", "images", b"\x01" + images)
    put("idx", "images-gz", b"\x01" + gz(images))
    put("idx", "labels", bytes([ten_classes]) + labels)
    put("idx", "labels-gz", bytes([ten_classes]) + gz(labels))


def cifar_seeds():
    record10 = lambda label: bytes([label]) + bytes(i % 256 for i in range(3072))
    put("cifar", "cifar10", b"\x00" + record10(3) + record10(9))
    put("cifar", "cifar100", b"\x01" + bytes([4, 99]) + bytes(3072))


NEWSGROUP_POST = (b"From: someone@example.com\nSubject: Re: orbits\n\nIn article <1@x> a@b writes:\n"
                  b"> quoted line\nThe shuttle flies low.\n-- \nsignature\n")


def text_seeds():
    csv = b'"3","Wall St. Bears","Reuters - Short-sellers\\band"\n"1","Title ""q""","desc"\r\n'
    put("text", "ag_news", b"\x00" + csv)
    tree = b"\0".join([b"train/sci.space/1\n" + NEWSGROUP_POST, b"train/alt.atheism/2\nBody only\n",
                       b"test/sci.space/3\n" + NEWSGROUP_POST])
    for remove in range(3):  # none, headers, all
        put("text", f"newsgroups-{remove}", bytes([1 + 4 * remove]) + tree)
    imdb = b"\0".join([b"train/pos/0_9.txt\nGreat film.<br />Loved it.", b"train/neg/1_2.txt\nBoring.",
                       b"test/pos/2_8.txt\nFine.", b"test/neg/3_1.txt\nBad \x93quotes\x94."])
    put("text", "imdb", b"\x02" + imdb)
    put("text", "rotten_tomatoes", b"\x03" + b"a gem of a film\nwarm \xe9motion\n\0a dull mess\n")


def archive_seeds():
    cifar = [("cifar-10-batches-bin/test_batch.bin", bytes([1]) + bytes(3072))]
    imdb = [("aclImdb/train/pos/0_9.txt", b"Great."), ("./aclImdb/test/neg/1_1.txt", b"Bad."),
            ("aclImdb/README", b"readme")]
    modes = ["w", "w:gz", "w:xz", "w:bz2"]
    for suffix, mode in enumerate(modes):
        put("archive", f"members-{suffix}", bytes([suffix]) + tar(imdb + cifar, mode))
    put("archive", "skip-members", bytes([0 + 4 * 1]) + tar(imdb, "w"))
    put("archive", "cifar-member", bytes([1 + 4 * 2]) + tar(cifar, "w:gz"))
    put("archive", "imdb-loader", bytes([0 + 4 * 3]) + tar(imdb, "w"))


def paper_seeds():
    put("paper", "dgsa", (ROOT / "experiments" / "paper" / "dgsa.yaml").read_bytes())
    put("paper", "small", "tables:\n  - table: 1\n    experiment: table1\n    metric: test_acc\n    n: 3\n"
        "    cells:\n      - {row: ViT, column: cifar10, mean: 80.5, std: 0.3}\n"
        "      - {row: DGViT, column: cifar10, mean: 81.0}\n"
        "  - {table: 5, experiment: params, metric: params, n: 1, cells: [{row: a, column: b, mean: 3.77,"
        " printed: 3.77M}]}\n")


def report_seeds():
    plan = {"experiment": "exp", "profile": "", "description": "",
            "runs": [{"dataset": "ds", "dir": f"ds/m/seed_{s}", "model_config": "m", "row_index": 0, "seed": s}
                     for s in range(3)]}
    metrics = {"epoch": 2, "test_acc": 81.5, "test_loss": 0.5, "train_acc": 90.0, "train_loss": 0.3,
               "val_acc": 80.0, "val_loss": 0.55}
    summary = {"experiment": "exp", "dataset": "ds", "model_config": "m", "row_index": 0, "seed": 0,
               "status": "complete", "epochs_planned": 2, "epochs_run": 2, "selected": metrics, "final": metrics,
               "selection": {"epoch": 2, "rule": "best_val"},
               "data": {"train": 64, "val": 8, "test": 32, "partial": True, "notes": ["subset: 64"]},
               "params": 1234, "wall_seconds": 3.5, "message": ""}
    csv = ("epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n"
           "1,4,0.001,0.6,70,0.7,65,0.7,66,1.5\n2,8,0.0005,0.3,90,0.55,80,0.5,81.5,2\n")
    second = dict(summary, seed=1, status="diverged", message="loss is NaN")
    dump = lambda obj: json.dumps(obj, indent=2, sort_keys=True)
    put("report", "complete-md", b"\x00" + "\0".join([dump(plan), dump(summary), csv, dump(second)]).encode())
    put("report", "complete-csv", b"\x05" + "\0".join([dump(plan), dump(summary), csv]).encode())
    put("report", "summary-only", b"\x02" + "\0".join(["", dump(summary), csv]).encode())


def spec_dictionary():
    """tests/fuzz/spec.dict: YAML syntax, top-level words and every key of the key table.

    The keys come from docs/spec.md, which is `repro list --format md` (tests/test_spec.cpp keeps it equal to the
    binary's output): the key table as the binary has it, wherever the keys are declared. tests/test_spec.cpp fails
    when spec.dict lacks a key of the table (run this script again)."""
    import re
    keys = re.findall(r'^\| `((?:model|data|text|train)\.[a-z0-9_.]+)` \|', (ROOT / "docs/spec.md").read_text(), re.M)
    if not keys:
        raise SystemExit("make_seeds.py: no key found in docs/spec.md: its table's format changed")
    words = ["experiment", "description", "datasets", "seeds", "models", "sweep", "profiles", "per_dataset",
             "name", "model", "data", "text", "train", "auto", "true", "null", "fashion_mnist", "cifar10",
             "imdb", "newsgroups", ": ", "\n  ", "- ", "[", "]", "{", "}", ", ", "&a", "*a", "<<: ", "!!str",
             "|\n", "0-4", "1e-3", "--set ", "--seeds ", "--profile ", "smoke", "="]
    tokens = sorted(set(keys)) + sorted(set(k.split(".")[-1] for k in keys)) + words
    write_dictionary("spec", tokens)


def ustar_claiming(name, data, claimed_size):
    """One ustar member whose header claims `claimed_size` bytes (base-256 size field)."""
    header = bytearray(512)
    header[0:len(name)] = name.encode()
    header[100:108] = b"0000644\0"
    header[108:116] = header[116:124] = b"0000000\0"
    header[124:136] = b"\x80\0\0\0" + claimed_size.to_bytes(8, "big")
    header[136:148] = b"00000000000\0"
    header[148:156] = b" " * 8
    header[156:157] = b"0"
    header[257:265] = b"ustar\x0000"
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + data + bytes(-len(data) % 512) + bytes(1024)


def regression_seeds():
    """Inputs of fixed findings (docs/reliability.md), replayed by ctest's fuzz_corpus_* entries."""
    bomb = "datasets: [fashion_mnist]\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
    for i in range(1, 10):
        bomb += f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
    put("spec", "regression-alias-bomb", bomb)
    put("archive", "regression-huge-member", bytes([0]) + ustar_claiming("a.bin", b"0123456789", 2**63 - 2))
    put("paper", "regression-huge-table-number", "tables:\n  - table: 5.66667e19\n    experiment: table1\n"
        "    cells: [{row: ViT, column: cifar10, mean: 80}]\n")
    put("idx", "regression-zero-images", b"\x01" + struct.pack(">IIII", 2051, 0, 28, 28))
    # summary.json with "data": {"partial": 4} (fuzz_report: json's type_error escaped read_run_record)
    summary = {"experiment": "exp", "dataset": "ds", "model_config": "m", "row_index": 0, "seed": 0,
               "status": "complete", "epochs_run": 1, "data": {"partial": 4},
               "selected": {"epoch": 1, "test_acc": 50.0}}
    put("report", "regression-partial-not-bool", b"\x00" + ("\0" + json.dumps(summary, indent=2)).encode())


if __name__ == "__main__":
    spec_dictionary()
    other_dictionaries()
    spec_seeds()
    idx_seeds()
    cifar_seeds()
    text_seeds()
    archive_seeds()
    paper_seeds()
    report_seeds()
    regression_seeds()
    for folder in sorted(CORPUS.iterdir()):
        print(folder.name, len(list(folder.iterdir())), "seeds")
