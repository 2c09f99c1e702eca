#!/usr/bin/env bash
# Fetch the card art from its source packages and render every chosen design to PNG.
#
# The art is never committed: this install step fetches it from the packages listed in
# datasets/ASSETS.md (Debian: gnome-cards-data, kdegames-card-data-kf5; npm:
# @heruka_urgyen/react-playing-cards, @younestouati/playing-cards-standard-deck), unpacks them
# into the cache and renders them with rsvg-convert (Debian librsvg2-bin) via
# datasets/art_build.py.
#
# Cache: $NERTZ_ART_DIR if set, else <repo>/.cache/art (gitignored). Layout:
#   src/       unpacked packages (usr/share/..., npm/<pkg>/package/...)
#   designs/   <design>/<card>.png (BGRA, 360x503 px) + meta.json
#   manifest.json  written last: package versions and the design list (completion marker)
#
# Idempotent: a complete cache (its manifest.json names this version of fetch_art.sh and
# art_build.py) returns at once; a partial or older one is resumed, re-rendering only the
# designs whose recipe changed. Options: --force (re-render everything), --clean (delete the
# cache first). Measured on the 2-core dev machine from nothing (librsvg2-bin not installed):
# about 130 s of CPU (user + sys), 3 to 4 minutes of wall time while other jobs shared the cores.
# CI can keep the cache between runs by pointing NERTZ_ART_DIR at a persistent folder.
# Needs: Debian (bookworm), apt-get (as root to install librsvg2-bin when it is missing), npm,
# and a Python with numpy + opencv ($PYTHON, else <repo>/.venv/bin/python, else python3).
set -euo pipefail

ART_VERSION=1
NPM_PKGS=(
  "@heruka_urgyen/react-playing-cards@0.5.0"
  "@younestouati/playing-cards-standard-deck@3.0.0"
)
DEB_PKGS=(gnome-cards-data kdegames-card-data-kf5)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
cache="${NERTZ_ART_DIR:-$repo/.cache/art}"
force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --clean) rm -rf "$cache" ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "fetch_art.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x "$repo/.venv/bin/python" ]]; then PYTHON="$repo/.venv/bin/python"; else PYTHON=python3; fi
fi

# the cache is complete when its manifest names this version of the build step
build_hash=$(cat "$here/fetch_art.sh" "$here/art_build.py" | sha256sum | cut -c1-16)
if [[ $force -eq 0 && -f "$cache/manifest.json" ]] \
   && grep -q "\"build\": \"$ART_VERSION-$build_hash\"" "$cache/manifest.json"; then
  echo "fetch_art: art cache complete at $cache"
  exit 0
fi

t0=$(date +%s)
mkdir -p "$cache/src" "$cache/debs" "$cache/designs"

# 1. rsvg-convert
if ! command -v rsvg-convert >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "fetch_art: rsvg-convert missing; run as root or 'apt-get install librsvg2-bin'" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq librsvg2-bin >/dev/null 2>&1 || {
    apt-get update -qq && apt-get install -y -qq librsvg2-bin >/dev/null; }
fi

# 2. Debian packages: download (no install) and unpack into src/
apt_updated=0
for pkg in "${DEB_PKGS[@]}"; do
  if ls "$cache/src/.deb-$pkg"_* >/dev/null 2>&1; then continue; fi
  rm -f "$cache/debs/$pkg"_*.deb
  if ! (cd "$cache/debs" && apt-get download -qq "$pkg" 2>/dev/null); then
    if [[ $apt_updated -eq 0 && $(id -u) -eq 0 ]]; then
      apt-get update -qq; apt_updated=1
    fi
    (cd "$cache/debs" && apt-get download -qq "$pkg")
  fi
  deb=$(ls "$cache/debs/$pkg"_*.deb | head -n1)
  dpkg-deb -x "$deb" "$cache/src"
  ver=$(dpkg-deb -f "$deb" Version)
  echo "$ver" > "$cache/src/.deb-${pkg}_ok"
  rm -f "$deb"
done

# 3. npm packages: pack (no install) and unpack into src/npm/<name>-<version>/
mkdir -p "$cache/src/npm"
for spec in "${NPM_PKGS[@]}"; do
  name="${spec%@*}"; ver="${spec##*@}"
  flat="$(echo "${name#@}" | tr '/' '-')"
  dest="$cache/src/npm/$flat"
  if [[ -f "$dest/.ok" ]] && [[ "$(cat "$dest/.ok")" == "$ver" ]]; then continue; fi
  rm -rf "$dest"; mkdir -p "$dest"
  tgz=$(cd "$cache/debs" && npm pack --silent "$spec" | tail -n1)
  tar xzf "$cache/debs/$tgz" -C "$dest"
  rm -f "$cache/debs/$tgz"
  echo "$ver" > "$dest/.ok"
done

# 4. render
force_arg=()
[[ $force -eq 1 ]] && force_arg=(--force)
"$PYTHON" "$here/art_build.py" --src "$cache/src" --out "$cache/designs" "${force_arg[@]}"

# 5. manifest (completion marker)
rm -f "$cache/manifest.json"
"$PYTHON" - "$cache" "$ART_VERSION-$build_hash" "${NPM_PKGS[@]}" <<'EOF'
import json, pathlib, sys
cache = pathlib.Path(sys.argv[1])
packages = {}
for ok in sorted((cache / "src").glob(".deb-*_ok")):
    packages[ok.name[len(".deb-"):-len("_ok")]] = ok.read_text().strip()
for spec in sys.argv[3:]:
    name, ver = spec.rsplit("@", 1)
    packages[name] = ver
designs = sorted(p.parent.name for p in (cache / "designs").glob("*/meta.json"))
(cache / "manifest.json").write_text(json.dumps(
    {"build": sys.argv[2], "packages": packages, "designs": designs}, indent=1))
EOF
rm -rf "$cache/debs"
echo "fetch_art: $(ls -d "$cache"/designs/*/ | wc -l) designs in $cache/designs ($(( $(date +%s) - t0 )) s)"
