#!/usr/bin/env bash
# fetch.sh - gets Debian's own arm64 Linux kernel (6.1 from bookworm, or 6.12 from
# bookworm-backports) and busybox-static for `make compare`: `apt-get download` of the
# .deb files and `dpkg-deb -x` under OUT (build/compare/); nothing is installed on the
# host and nothing on the system changes. apt's lists of arm64 packages are kept private
# under OUT/apt/ (its own sources list, list directory and cache, arm64 only, checked with
# the system's debian-archive-keyring), so neither arm64 as a foreign architecture nor the
# backports source enters the system's apt: no consent is asked, none is needed.
#   tools/compare/fetch.sh OUT [6.1|6.12]
#     6.1 (default): OUT/linux/boot/vmlinuz-*; 6.12: OUT/linux-6.12/boot/vmlinuz-*;
#     both: OUT/busybox/bin/busybox
set -euo pipefail

out=${1:?usage: fetch.sh OUTDIR [6.1|6.12]}
ver=${2:-6.1}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
die() {
	echo "fetch.sh: $*" >&2
	exit 1
}
case "$ver" in
6.1)
	# The 6.1 ABI packages (linux-image-6.1.0-N-arm64-unsigned), newest of bookworm's
	# suites, security updates included.
	kre='^linux-image-6\.1\.[0-9]+-[0-9]+-arm64-unsigned$'
	kdir=linux
	suites="bookworm bookworm-updates"
	;;
6.12)
	# Named by upstream version (linux-image-6.12.N+deb12-arm64-unsigned): bookworm-backports
	# has them, and bookworm-security too since Debian 12 took 6.12 in (the newest wins).
	kre='^linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned$'
	kdir=linux-6.12
	suites="bookworm bookworm-updates bookworm-backports"
	;;
*) die "Linux $ver: only 6.1 and 6.12 are known" ;;
esac
[ -r "$keyring" ] || die "no $keyring (apt-get install debian-archive-keyring)"

# 1. A private apt state: OUT/apt/{sources.list,lists,cache}, arm64 only.
apt="$out/apt"
mkdir -p "$out/deb" "$apt/lists/partial" "$apt/cache/archives/partial"
apt=$(cd "$apt" && pwd)
{
	for s in $suites; do
		echo "deb [arch=arm64 signed-by=$keyring] $mirror $s main"
	done
	echo "deb [arch=arm64 signed-by=$keyring] $security bookworm-security main"
} >"$apt/sources.list"
aptopt=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o "Dir::State::status=/dev/null" -o APT::Architectures::=arm64
	-o APT::Architecture=arm64 -o Debug::NoLocking=1)
echo "fetch.sh: arm64 package lists of $suites, bookworm-security, kept in $apt" \
	"(the system's apt is not changed): apt-get update" >&2
apt-get "${aptopt[@]}" update 2>&1 >/dev/null | { grep -v "unsandboxed as root" >&2 || true; }
apt-cache "${aptopt[@]}" show busybox-static >/dev/null 2>&1 ||
	die "apt-get update found no arm64 packages (network? see $apt/sources.list)"

# 2. The newest kernel image of that series (unsigned: the same kernel, without the Secure
# Boot signature) and busybox-static, downloaded, not installed.
kpkg=$(apt-cache "${aptopt[@]}" search --names-only "$kre" | awk '{print $1}' | sort -V |
	tail -n 1)
[ -n "$kpkg" ] || die "no package matching $kre in $suites (arm64): Linux $ver is missing there"
cd "$out/deb"
for p in "$kpkg" busybox-static; do
	ls "${p}"_*_arm64.deb >/dev/null 2>&1 && continue
	echo "fetch.sh: apt-get download $p:arm64 ($(apt-cache "${aptopt[@]}" policy "$p" |
		awk '/Candidate:/ {print $2}'))" >&2
	# As root, apt warns that its _apt user cannot write here: harmless, not shown.
	apt-get "${aptopt[@]}" download "$p:arm64" 2>&1 >/dev/null |
		{ grep -v "unsandboxed as root" >&2 || true; }
	ls "${p}"_*_arm64.deb >/dev/null 2>&1 || die "apt-get download $p:arm64 failed"
done

# 3. Unpacked, not installed.
rm -rf "../$kdir" ../busybox
debs=("$kpkg"_*_arm64.deb)
echo "fetch.sh: dpkg-deb -x ${debs[-1]} $out/$kdir" >&2
dpkg-deb -x "${debs[-1]}" "../$kdir"
debs=(busybox-static_*_arm64.deb)
dpkg-deb -x "${debs[-1]}" ../busybox
ls "../$kdir"/boot/vmlinuz-* ../busybox/bin/busybox
