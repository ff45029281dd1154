# shellcheck shell=bash
# Installs the load tools the benchmark needs when they are missing, and reports versions.
#   wrk, nginx, h2load (nghttp2-client): Debian packages via apt-get
#   etcd (etcd-server), for `ringkv bench --etcd` only: Debian package via apt-get
#   vegeta: built from its Go module into bench/.tools/ (go install ...@latest is not allowed
#           here; downloading the pinned module and building inside it is)
#   matplotlib: pip, into the venv bench/.venv used by bench/report/render.py

VEGETA_MODULE=github.com/tsenart/vegeta/v12
VEGETA_VERSION=v12.12.0

apt_install() {
  local pkgs=("$@")
  [[ $(id -u) == 0 ]] || die "missing ${pkgs[*]}; install them (apt-get install ${pkgs[*]}) or run as root"
  log "installing ${pkgs[*]} with apt-get"
  if [[ ! -f "$BENCH_DIR/.tools/.apt-updated" ]]; then
    apt-get update -qq >&2 || die "apt-get update failed"
    mkdir -p "$BENCH_DIR/.tools" && touch "$BENCH_DIR/.tools/.apt-updated"
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2 \
    || die "apt-get install ${pkgs[*]} failed"
}

ensure_debian_tools() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
  command -v h2load >/dev/null || missing+=(nghttp2-client)
  ((${#missing[@]} == 0)) || apt_install "${missing[@]}"
  NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
}

ensure_etcd() {
  command -v etcd >/dev/null || apt_install etcd-server
}

ensure_vegeta() {
  VEGETA_BIN="$BENCH_DIR/.tools/vegeta"
  # The version check also rebuilds a binary left by an older pin.
  [[ -x $VEGETA_BIN ]] && "$VEGETA_BIN" -version 2>/dev/null | grep -q "$VEGETA_VERSION" && return 0
  command -v go >/dev/null || die "vegeta needs Go to build (apt-get install golang, or put go on PATH)"
  log "building vegeta $VEGETA_VERSION from its Go module into bench/.tools/"
  local dir
  dir=$(go mod download -json "$VEGETA_MODULE@$VEGETA_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') \
    || die "go mod download $VEGETA_MODULE@$VEGETA_VERSION failed"
  mkdir -p "$BENCH_DIR/.tools"
  # The module cache is read-only; -mod=mod lets go resolve the module's own requirements.
  (cd "$dir" && GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath \
    -ldflags "-X main.Version=$VEGETA_VERSION" -o "$VEGETA_BIN" .) >&2 \
    || die "building vegeta failed"
}

# ensure_venv: sets PYTHON to a python with matplotlib, or to plain python3 (charts off)
# when the venv cannot be made; render.py says so in its output.
ensure_venv() {
  local venv="$BENCH_DIR/.venv"
  if [[ -x $venv/bin/python ]] && "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    PYTHON=$venv/bin/python; return 0
  fi
  log "creating bench/.venv with matplotlib (pip)"
  if python3 -m venv "$venv" >&2 && "$venv/bin/pip" install -q --disable-pip-version-check matplotlib >&2; then
    PYTHON=$venv/bin/python
  else
    warn "could not install matplotlib; charts will be skipped"
    PYTHON=python3
  fi
}

# tool_versions_json: one JSON object with the version of every tool that produced figures.
tool_versions_json() {
  local java_bin=${JAVA_HOME:+$JAVA_HOME/bin/}java
  python3 - "$(wrk -v 2>&1 | head -1)" "$("$VEGETA_BIN" -version 2>&1 | head -1)" \
    "$("$NGINX_BIN" -v 2>&1 | head -1)" "$("$java_bin" -version 2>&1 | head -1)" \
    "$(h2load --version 2>&1 | head -1)" "$(go version 2>/dev/null)" <<'EOF'
import json, sys
names = ["wrk", "vegeta", "nginx", "java", "h2load", "go"]
print(json.dumps(dict(zip(names, (v.strip() for v in sys.argv[1:])))))
EOF
}
