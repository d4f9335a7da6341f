#!/usr/bin/env bash
# fetch-qemu10.sh - QEMU 10 from bookworm-backports for issue 26's lead 2 (tools/qemu/timectl.c),
# without changing the system: a private apt state under OUT/apt (its own sources list,
# lists and cache, the host's architecture, checked with debian-archive-keyring, as
# tools/compare/fetch.sh does), `apt-get download` of qemu-system-arm, -common and -data at
# the backports version, `dpkg-deb -x` into OUT/root. Nothing is installed; Debian 12's
# libraries suffice (checked for 10.0.2+ds-2+deb13u1~bpo12+1). Debian ships no
# qemu-plugin.h: timectl.c declares the API itself. Run it with tools/qemu/run-qemu10.sh.
#   tools/qemu/fetch-qemu10.sh OUT      (e.g. build/qemu10)
set -euo pipefail
out=${1:?usage: fetch-qemu10.sh OUTDIR}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=http://deb.debian.org/debian
[ -r "$keyring" ] || { echo "fetch-qemu10.sh: no $keyring" >&2; exit 1; }
mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/deb"
out=$(cd "$out" && pwd)
apt="$out/apt"
arch=$(dpkg --print-architecture)
{
	for s in bookworm bookworm-updates bookworm-backports; do
		echo "deb [arch=$arch signed-by=$keyring] $mirror $s main"
	done
} >"$apt/sources.list"
aptopt=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o "Dir::State::status=/dev/null" -o Debug::NoLocking=1)
echo "fetch-qemu10.sh: package lists kept in $apt (the system's apt is not changed)" >&2
apt-get "${aptopt[@]}" update 2>&1 >/dev/null | { grep -v "unsandboxed as root" >&2 || true; }
# The newest 10.x of any suite (only backports has one).
ver=$(apt-cache "${aptopt[@]}" madison qemu-system-arm | awk '{print $3}' | grep '^1:10\.' |
	sort -V | tail -n 1)
[ -n "$ver" ] || { echo "fetch-qemu10.sh: no QEMU 10 in bookworm-backports" >&2; exit 1; }
cd "$out/deb"
apt-get "${aptopt[@]}" download "qemu-system-arm=$ver" "qemu-system-common=$ver" \
	"qemu-system-data=$ver" 2>&1 >/dev/null | { grep -v "unsandboxed as root" >&2 || true; }
rm -rf "$out/root"
for d in qemu-system-*_*.deb; do
	dpkg-deb -x "$d" "$out/root"
done
"$out/root/usr/bin/qemu-system-aarch64" --version | head -n 1
