#!/usr/bin/env python3
"""repro's image batches vs torchvision's DataLoader, same data, transforms and batch.

  scripts/reference/data_pipeline.py DATA_ROOT [--repro build/repro] [--batch 128] [--workers 0,2] [--seconds 10]

repro: `repro data info cifar10 --bench data.augment=crop_flip` (decode once, then
batches as tensor ops: random crop with 4-pixel zero padding, horizontal flip,
normalization). torchvision: the CIFAR-10 training images decoded once into a uint8
array (as torchvision.datasets.CIFAR10 holds them), a Dataset returning
transforms.Compose([RandomCrop(32, padding=4), RandomHorizontalFlip(), ToTensor(),
Normalize(mean, std)]) of Image.fromarray(image), and a shuffling DataLoader.
Prints images/s of each and the ratio.
"""
import argparse
import io
import re
import subprocess
import tarfile
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def load_cifar10_train(root):
    images, labels = [], []
    with tarfile.open(f"{root}/cifar10/cifar-10-batches-bin-train-only.tar.xz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not re.search(r"data_batch_\d\.bin$", member.name):
                continue
            raw = np.frombuffer(archive.extractfile(member).read(), dtype=np.uint8).reshape(-1, 3073)
            labels.append(raw[:, 0].astype(np.int64))
            images.append(raw[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))  # (N, H, W, C) as torchvision
    return np.concatenate(images), np.concatenate(labels)


class Cifar(Dataset):
    def __init__(self, images, labels, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), int(self.labels[i])


def torchvision_rate(images, labels, batch, workers, seconds):
    transform = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                    transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    loader = DataLoader(Cifar(images, labels, transform), batch_size=batch, shuffle=True, num_workers=workers)
    count, start = 0, None
    for i, (x, y) in enumerate(loader):
        if i == 2:  # after the workers started
            start, count = time.perf_counter(), 0
        elif start is not None:
            count += x.shape[0]
            if time.perf_counter() - start > seconds:
                break
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_root")
    parser.add_argument("--repro", default="build/repro")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--workers", default="0,2")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    out = subprocess.run([args.repro, "data", "info", "--bench", "--data-root", args.data_root, "cifar10",
                          "data.augment=crop_flip", f"train.batch_size={args.batch}",
                          "data.files=test=test_batch.first1000.bin"],
                         check=True, capture_output=True, text=True).stdout
    repro_rate = float(re.search(r"batching: (\d+) training examples/s", out).group(1))
    repro_load = float(re.search(r"loading: ([\d.e+-]+) s", out).group(1))
    start = time.perf_counter()
    images, labels = load_cifar10_train(args.data_root)
    python_load = time.perf_counter() - start
    print(f"CIFAR-10 training split ({len(images)} images), batch {args.batch}, crop (pad 4) + flip + normalize, "
          f"torch {torch.__version__}, {torch.get_num_threads()} threads\n")
    print("| pipeline | decode once (s) | images/s | repro / this |")
    print("|---|---|---|---|")
    print(f"| repro (tensor ops, {args.repro}) | {repro_load:.2f} | {repro_rate:.0f} | 1.00x |")
    for workers in [int(w) for w in args.workers.split(",")]:
        rate = torchvision_rate(images, labels, args.batch, workers, args.seconds)
        print(f"| torchvision DataLoader, num_workers={workers} | {python_load:.2f} | {rate:.0f} | {repro_rate / rate:.1f}x |")


if __name__ == "__main__":
    main()
