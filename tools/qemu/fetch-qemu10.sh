#!/usr/bin/env bash
# fetch-qemu10.sh - QEMU 10 (bookworm-backports) for issue 26's lead 2, without changing
# the system: a private apt state under OUT/apt (own sources list, lists, cache; amd64),
# `apt-get download` of the .debs and `dpkg-deb -x` into OUT/root. Nothing is installed.
#   tools/qemu/fetch-qemu10.sh OUT   (e.g. build/qemu10)
set -euo pipefail
out=${1:?usage: fetch-qemu10.sh OUTDIR}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=http://deb.debian.org/debian
mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/deb"
out=$(cd "$out" && pwd)
apt="$out/apt"
arch=$(dpkg --print-architecture)
{
	for s in bookworm bookworm-updates bookworm-backports; do
		echo "deb [arch=$arch signed-by=$keyring] $mirror $s main"
	done
	echo "deb [arch=$arch signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main"
} >"$apt/sources.list"
aptopt=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o "Dir::State::status=/dev/null" -o Debug::NoLocking=1)
if [ "${1:-}" != "" ] && [ ! -e "$apt/lists/.done" ]; then
	apt-get "${aptopt[@]}" update 2>&1 >/dev/null | { grep -v "unsandboxed as root" >&2 || true; }
	touch "$apt/lists/.done"
fi
shift
# Remaining args: apt-cache/apt-get subcommand passthrough for exploration, or "download PKG..."
if [ $# -gt 0 ]; then
	case "$1" in
	download)
		shift
		cd "$out/deb"
		apt-get "${aptopt[@]}" download "$@" 2>&1 | { grep -v "unsandboxed as root" >&2 || true; }
		;;
	*) apt-cache "${aptopt[@]}" "$@" ;;
	esac
fi
