# codeflare-operator image: built on Debian bookworm, run as a non-root numeric user.
#   docker build -t codeflare-operator:dev .
#   docker build --build-arg UPSTREAM_CRDS=<folder in the context, laid out like shared/crds> -t ... .
# test/integration/dockerfile_check.py runs the build stage's commands in a folder holding what the COPY lines copy,
# and checks the runtime stage's packages against the binary's shared libraries (make test; no container engine).
# Keep every path of a RUN relative to the WORKDIR, so that the check can run them outside a container.
FROM debian:bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential lld cmake pkg-config libboost-dev libboost-system-dev rapidjson-dev libyaml-dev \
      prometheus-cpp-dev libspdlog-dev libssl-dev libre2-dev zlib1g-dev ca-certificates curl python3 python3-yaml \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY controller/ controller/
COPY hack/ hack/
COPY test/harness/lib.sh test/harness/fetch-upstream-crds.sh test/harness/upstream-crds.pins test/harness/adapt-crds-for-1.20.py test/harness/
# The upstream CRDs whose schemas ship in the image (hack/bundle-upstream-crds.py): the pinned releases, fetched and
# sha256-checked, unless UPSTREAM_CRDS names such a folder.
ARG UPSTREAM_CRDS=
RUN crds="$UPSTREAM_CRDS"; \
    if [ -z "$crds" ]; then crds="$(CODEFLARE_CACHE="$PWD/crd-cache" test/harness/fetch-upstream-crds.sh | tail -n1)"; fi \
 && cmake -S . -B build-image -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCFO_BUILD_BENCH=OFF \
      -DCFO_UPSTREAM_CRDS="$crds" -DCMAKE_INSTALL_PREFIX=/usr/local \
 && cmake --build build-image -j"$(nproc)" --target codeflare-operator upstream-crd-bundle \
 && DESTDIR="$PWD/out" cmake --install build-image --strip

# The runtime image: the binary, the schemas that ship with it, and the Debian packages of its shared libraries
# (OpenSSL, zlib, LibYAML and RE2 are linked in: CFO_STATIC_DEPS; spdlog is compiled in: cfo_spdlog; ca-certificates
# brings OpenSSL's configuration).
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      ca-certificates libfmt9 libprometheus-cpp-core1.0 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/out/usr/local/ /usr/local/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/codeflare-operator"]
CMD ["run"]
