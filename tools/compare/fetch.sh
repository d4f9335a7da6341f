#!/usr/bin/env bash
# fetch.sh - gets Debian's own arm64 Linux 6.1 kernel and busybox-static for
# `make compare`: `apt-get download` of the two .deb files and `dpkg-deb -x`
# under OUT (build/compare/); nothing is installed on the host. Needs arm64
# as a foreign architecture in apt: a change to the system, made only with
# consent (COMPARE_OK=1 or y at the prompt) and as root or through sudo, as
# tools/deps.sh does for packages; otherwise it stops with the exact command.
#   tools/compare/fetch.sh OUT      leaves OUT/linux/boot/vmlinuz-* and OUT/busybox/bin/busybox
set -euo pipefail

out=${1:?usage: fetch.sh OUTDIR}
mkdir -p "$out/deb"

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="unavailable"; fi
fi
refuse() {	# refuse WHY COMMAND: say what to run by hand, and stop
	echo "fetch.sh: $1; to do it yourself, as root:" >&2
	echo "    $2" >&2
	exit 1
}
consent() {	# consent WHAT: COMPARE_OK=1, or y at an interactive prompt
	[ "${COMPARE_OK-}" = 1 ] && return 0
	[ -t 0 ] || return 1
	local a
	read -r -p "fetch.sh: $1 [y/N] " a
	case "$a" in y | Y | yes) return 0 ;; *) return 1 ;; esac
}

# 1. arm64 packages visible to apt (dpkg --add-architecture, then the lists).
native=$(dpkg --print-architecture)
addarch="dpkg --add-architecture arm64 && apt-get update"
if [ "$native" != arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	consent "make compare needs arm64 as a foreign architecture in apt ($addarch):
a change to this system. Do it?" ||
		refuse "arm64 is not an apt architecture here (set COMPARE_OK=1 to allow it)" \
			"$addarch"
	[ "$sudo" = unavailable ] && refuse "not root and no sudo" "$addarch"
	echo "fetch.sh: enabling the arm64 architecture in apt: $addarch" >&2
	$sudo dpkg --add-architecture arm64
	$sudo apt-get update >/dev/null || refuse "apt-get update failed" "apt-get update"
fi
if ! apt-cache show busybox-static:arm64 >/dev/null 2>&1; then
	[ "$sudo" = unavailable ] && refuse "apt has no arm64 package lists" "apt-get update"
	echo "fetch.sh: apt has no arm64 package lists yet: apt-get update" >&2
	$sudo apt-get update >/dev/null || refuse "apt-get update failed" "apt-get update"
fi

# 2. The newest 6.1 arm64 kernel image (unsigned: the same kernel, without the
# Secure Boot signature) and busybox-static, downloaded, not installed.
kpkg=$(apt-cache search --names-only '^linux-image-6\.1\.[0-9]+-[0-9]+-arm64-unsigned$' |
	awk '{print $1}' | sort -V | tail -n 1)
[ -n "$kpkg" ] || refuse "no linux-image-6.1.*-arm64-unsigned package in apt" "$addarch"
cd "$out/deb"
for p in "$kpkg:arm64" busybox-static:arm64; do
	ls "${p%%:*}"_*_arm64.deb >/dev/null 2>&1 && continue
	echo "fetch.sh: apt-get download $p" >&2
	# As root, apt warns that its _apt user cannot write here: harmless, not shown.
	apt-get download "$p" 2>&1 >/dev/null | { grep -v "unsandboxed as root" >&2 || true; }
done

# 3. Unpacked, not installed.
rm -rf ../linux ../busybox
debs=("$kpkg"_*_arm64.deb)
dpkg-deb -x "${debs[-1]}" ../linux
debs=(busybox-static_*_arm64.deb)
dpkg-deb -x "${debs[-1]}" ../busybox
ls ../linux/boot/vmlinuz-* ../busybox/bin/busybox >/dev/null
