#!/usr/bin/env bash
# linux_source.sh - the Linux source this kernel's "Linux 6.1" means: Debian 12's
# linux-source-6.1 package (the kernel `make compare` boots), downloaded with
# `apt-get download` (unprivileged, nothing installed) and unpacked under OUT for
# reading. The scheduler paths only: kernel/sched/, include/linux/, the changelog.
# Never committed, never copied from (docs/deviations.md, "The reference").
#   tools/linux_source.sh OUT [PKG [VERSION]]
#     OUT/linux-source-6.1/kernel/sched/fair.c ...; OUT/changelog.Debian.gz
set -euo pipefail

out=${1:?usage: linux_source.sh OUTDIR [PKG [VERSION]]}
pkg=${2:-linux-source-6.1}
ver=${3:-6.1.192-3}
mkdir -p "$out/deb"
cd "$out/deb"
if ! ls "${pkg}_${ver}"_all.deb >/dev/null 2>&1; then
	echo "linux_source.sh: apt-get download $pkg=$ver" >&2
	apt-get download "$pkg=$ver" 2>&1 >/dev/null |
		{ grep -v "unsandboxed as root" >&2 || true; }
fi
rm -rf ../pkg
dpkg-deb -x "${pkg}_${ver}"_all.deb ../pkg
cd ..
cp pkg/usr/share/doc/"$pkg"/changelog.Debian.gz .
tarball=$(ls pkg/usr/src/"$pkg".tar.xz)
top=$(basename "$tarball" .tar.xz)
rm -rf "$top"
tar -xJf "$tarball" --wildcards "$top/kernel/sched" "$top/include/linux" "$top/Makefile"
rm -rf pkg
echo "$ver" > "$top/DEBIAN_VERSION"
grep -m3 -E '^(VERSION|PATCHLEVEL|SUBLEVEL)' "$top/Makefile" >&2
