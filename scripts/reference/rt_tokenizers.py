#!/usr/bin/env python3
"""Rotten Tomatoes: the word vocabulary (min_freq 2, with 3 specials) under other tokenizers.

  scripts/reference/rt_tokenizers.py DATA_ROOT [--seed 0]

A lead for docs/params.md, outside repro: Table 6's Rotten Tomatoes counts imply a
vocabulary of about 7,200-7,500 entries; repro's word tokenizer gives 7,862 on its
6,824 training texts. This script emulates the split (the first 80% of each class
file = the standard training fold, 8,530 texts; a seeded random 80% of it = 6,824,
not repro's stratified draw, so the emulated count differs from repro's by a
percent or two) and counts the vocabulary each tokenizer gives on both. Compare
the rows with each other, not with repro's absolute count.
"""
import argparse
import collections
import random
import re
import tarfile


def load(root):
    with tarfile.open(f"{root}/rotten_tomatoes/rt-polaritydata.tar.xz") as tar:
        def lines(name):
            data = tar.extractfile(f"rt-polaritydata/rt-polarity.{name}").read()
            return [l.decode("cp1252", errors="replace").strip() for l in data.split(b"\n") if l.strip()]
        return lines("pos"), lines("neg")


def repro_words(text):  # src/text/word_tokenizer.cpp: [a-z0-9, bytes >= 0x80]+ with inner apostrophes; other characters alone
    out, i, text = [], 0, text.lower()
    word = lambda c: "a" <= c <= "z" or "0" <= c <= "9" or ord(c) >= 0x80
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif word(text[i]):
            j = i
            while j < len(text) and (word(text[j]) or (text[j] == "'" and j + 1 < len(text) and word(text[j + 1]))):
                j += 1
            out.append(text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return out


BASIC_ENGLISH = [(r"\'", " '  "), (r"\"", ""), (r"\.", " . "), (r"<br \/>", " "), (r",", " , "), (r"\(", " ( "),
                 (r"\)", " ) "), (r"\!", " ! "), (r"\?", " ? "), (r"\;", " "), (r"\:", " "), (r"\s+", " ")]


def basic_english(text):  # torchtext.data.get_tokenizer("basic_english")
    text = text.lower()
    for pattern, replacement in BASIC_ENGLISH:
        text = re.sub(pattern, replacement, text)
    return text.split()


def keras(text):  # tf.keras Tokenizer's default filters, lower=True, split on spaces
    text = text.lower()
    for c in '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n':
        text = text.replace(c, " ")
    return text.split()


def contractions(text):  # repro's words with n't 's 're 've 'll 'd 'm split off, as Treebank-style tokenizers do
    out = []
    for w in repro_words(text):
        m = re.match(r"^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$", w)
        out += [m.group(1), m.group(2)] if m else [w]
    return out


TOKENIZERS = {
    "repro word (emulated)": repro_words,
    "torchtext basic_english": basic_english,
    "whitespace, lower-cased": lambda t: t.lower().split(),
    "keras Tokenizer": keras,
    "\\w+ (regex)": lambda t: re.findall(r"\w+", t.lower()),
    "repro word + contractions split": contractions,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_root")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pos, neg = load(args.data_root)
    fold = pos[: round(len(pos) * 0.8)] + neg[: round(len(neg) * 0.8)]
    sample = random.Random(args.seed).sample(fold, round(len(fold) * 0.8))
    print(f"| tokenizer | vocabulary, {len(sample):,} texts | vocabulary, {len(fold):,} texts |")
    print("|---|---|---|")
    for name, tokenize in TOKENIZERS.items():
        sizes = []
        for texts in (sample, fold):
            counts = collections.Counter(w for t in texts for w in tokenize(t))
            sizes.append(sum(1 for c in counts.values() if c >= 2) + 3)
        print(f"| {name} | {sizes[0]:,} | {sizes[1]:,} |")


if __name__ == "__main__":
    main()
