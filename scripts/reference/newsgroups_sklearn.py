#!/usr/bin/python3
"""repro's data.newsgroups_remove=sklearn against scikit-learn's own functions, post by post.

  scripts/reference/newsgroups_sklearn.py DATA_ROOT [--build build]

Builds scripts/reference/newsgroups_dump.cpp against repro's library in --build (the
flags and link line CMake wrote for `repro`), which writes every 20 Newsgroups post as
repro's loader cleans it; then applies scikit-learn's strip_newsgroup_header, _footer
and _quoting (fetch_20newsgroups' order for remove=('headers', 'footers', 'quotes'))
to the same posts, decoded as repro decodes them (cp1252 for 0x80-0x9F, else Latin-1),
and counts posts identical, equal up to whitespace (what the word tokenizer sees), or
different. Needs Debian's python3-sklearn (/usr/bin/python3).
"""
import argparse
import os
import subprocess
import tarfile
import tempfile

from sklearn.datasets._twenty_newsgroups import (strip_newsgroup_footer, strip_newsgroup_header,
                                                 strip_newsgroup_quoting)

HERE = os.path.dirname(os.path.abspath(__file__))


def build_dumper(build, folder):
    flags = dict(line.split(" = ", 1) for line in open(f"{build}/CMakeFiles/repro.dir/flags.make").read().splitlines()
                 if " = " in line)
    obj, exe = f"{folder}/dump.o", f"{folder}/dump"
    subprocess.run(f"c++ {flags['CXX_FLAGS']} {flags['CXX_DEFINES']} {flags['CXX_INCLUDES']} "
                   f"-c {HERE}/newsgroups_dump.cpp -o {obj}", shell=True, check=True)
    link = open(f"{build}/CMakeFiles/repro.dir/link.txt").read().strip()
    link = link.replace("CMakeFiles/repro.dir/src/main.cpp.o", obj).replace("-o repro ", f"-o {exe} ")
    subprocess.run(link, shell=True, check=True, cwd=build)
    return exe


def repro_decoding(data):  # src/data/text.cpp cp1252_to_utf8
    out = []
    for byte in data:
        if 0x80 <= byte < 0xA0:
            try:
                out.append(bytes([byte]).decode("cp1252"))
                continue
            except UnicodeDecodeError:
                pass
        out.append(chr(byte))
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_root")
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        dumper = build_dumper(os.path.abspath(args.build), folder)
        subprocess.run([dumper, args.data_root, "sklearn", f"{folder}/posts.bin"], check=True)
        ours = open(f"{folder}/posts.bin", "rb").read().split(b"\0")[:-1]
    posts = {}
    with tarfile.open(f"{args.data_root}/20newsgroups/20news-bydate.tar.xz") as tar:
        for member in tar:
            if member.isfile() and member.name.count("/") == 2:
                posts[member.name] = tar.extractfile(member).read()
    order = [name for split in ("train", "test") for name in sorted(p for p in posts if p.startswith(f"20news-bydate-{split}/"))]
    assert len(ours) == len(order), f"repro wrote {len(ours)} posts, the archive holds {len(order)}"
    same = spaces = 0
    differ = []
    for name, mine in zip(order, ours):
        theirs = strip_newsgroup_quoting(strip_newsgroup_footer(strip_newsgroup_header(repro_decoding(posts[name]))))
        mine = mine.decode("utf-8")
        if mine == theirs:
            same += 1
        elif mine.split() == theirs.split():
            spaces += 1
        else:
            differ.append(name)
    print(f"{len(order)} posts: {same} identical, {spaces} equal up to whitespace, {len(differ)} differ"
          + (f" (first: {', '.join(differ[:5])})" if differ else ""))
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
