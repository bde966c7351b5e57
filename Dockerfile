# A CUDA build of repro on Debian 13 (trixie): Debian's LibTorch 2.6 CUDA build
# (libtorch-cuda-dev, contrib), nvcc 12.4 (nvidia-cuda-toolkit, non-free) and the
# project's other libraries, all from Debian's packages.
#   docker build -t repro .
#   docker run --gpus all -v /path/to/datasets:/data repro run experiments/quickstart.yaml --data-root /data
# The packages come from scripts/install-packages trixie-cuda, the same script and list
# that scripts/lane-debian13 cuda runs in its trixie root (so CI executes these package
# steps), with one difference: --with-cudnn-download lets nvidia-cudnn's installer
# download cuDNN 9 from NVIDIA during the build (a docker build has internet), which
# accepts NVIDIA's cuDNN licence. The lane declines it (no network there) and links
# against a generated stub instead, a test fixture that never reaches this image.
FROM debian:trixie

ENV DEBIAN_FRONTEND=noninteractive
# libtorch-cuda-dev is in contrib, nvidia-cuda-toolkit and nvidia-cudnn in non-free.
RUN sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' \
      /etc/apt/sources.list.d/debian.sources
COPY scripts/install-packages /usr/local/bin/repro-install-packages
RUN repro-install-packages trixie-cuda --with-cudnn-download \
    && apt-get clean && rm -rf /var/lib/apt/lists/*

WORKDIR /repro
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
    && cmake --build build -j"$(nproc)" \
    && build/repro --version
ENTRYPOINT ["/repro/build/repro"]
CMD ["--version"]
