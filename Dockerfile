# A CUDA build of repro: NVIDIA's CUDA devel image, the LibTorch 2.x CUDA
# distribution, and the other libraries from Ubuntu's packages.
#   docker build -t repro .
#   docker run --gpus all -v /path/to/datasets:/data repro run experiments/quickstart.yaml --data-root /data
FROM nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04

ARG LIBTORCH_URL=https://download.pytorch.org/libtorch/cu124/libtorch-cxx11-abi-shared-with-deps-2.5.1%2Bcu124.zip
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config git curl unzip ca-certificates \
      libcli11-dev libyaml-cpp-dev libspdlog-dev libfmt-dev zlib1g-dev nlohmann-json3-dev \
      libopencv-dev libsentencepiece-dev libprotobuf-dev catch2 libarchive-dev libmatio-dev libcurl4-openssl-dev \
      libcairo2-dev fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
RUN curl -fsSL "$LIBTORCH_URL" -o /tmp/libtorch.zip && unzip -q /tmp/libtorch.zip -d /opt && rm /tmp/libtorch.zip

WORKDIR /repro
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/libtorch \
      -DCMAKE_CUDA_ARCHITECTURES=80\;90 && cmake --build build -j"$(nproc)"
ENTRYPOINT ["/repro/build/repro"]
CMD ["--version"]
