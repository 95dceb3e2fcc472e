# codeflare-operator image: built on Debian bookworm, run as a non-root numeric user.
#   docker build -t codeflare-operator:dev .
FROM debian:bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libboost-dev libboost-system-dev rapidjson-dev libyaml-dev \
      prometheus-cpp-dev libspdlog-dev libssl-dev libre2-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY controller/ controller/
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build -j"$(nproc)" --target codeflare-operator \
 && strip /build/controller/cmd/codeflare-operator \
 && mkdir -p /out/lib \
 && cp /build/controller/cmd/codeflare-operator /out/ \
 && ldd /out/codeflare-operator | awk '/=> \// {print $3}' | xargs -I{} cp -L {} /out/lib/

# The runtime image holds the binary, the shared libraries it links (copied from the build stage by ldd above:
# libyaml, libre2, libssl, prometheus-cpp, ...) and CA roots.
FROM debian:bookworm-slim
COPY --from=build /out/lib/ /usr/local/lib/codeflare-operator/
COPY --from=build /out/codeflare-operator /usr/local/bin/codeflare-operator
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV LD_LIBRARY_PATH=/usr/local/lib/codeflare-operator
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/codeflare-operator"]
CMD ["run"]
