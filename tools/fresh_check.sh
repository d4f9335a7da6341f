#!/usr/bin/env bash
# fresh_check.sh - make fresh-check: `make test` as a newcomer runs it, as root in a bare
# Debian 12 (debootstrap minbase + git, make, python3, ca-certificates) on a fresh clone
# of the committed HEAD. Owns build/fresh/: base.tar, the debootstrapped root, made once
# and never entered (so every check starts from minbase's packages, not from what the
# previous one installed); root/, a fresh copy of it per check; make-test.log.
# Uncommitted changes are not tested (the clone is of HEAD). Needs root (debootstrap,
# chroot, mounts); the mounts live in a private mount namespace and are unmounted on exit.
#   FRESH_MIRROR=URL  the Debian mirror (default: this machine's apt sources, else
#                     http://deb.debian.org/debian)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$repo/build/fresh
base=$dir/base.tar
root=$dir/root
log=$dir/make-test.log

if [ "$(id -u)" -ne 0 ]; then
	echo "fresh-check: needs root (debootstrap, chroot, mounts): sudo make fresh-check" >&2
	exit 1
fi
bash "$repo/tools/deps.sh" --fresh	# debootstrap, said and installed if missing

# The first Debian URI of this machine's apt sources (one-line or deb822 format), so
# that a machine behind a local mirror or a proxy uses it here too.
mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		sed -n -e 's/^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}:[^ ]*\) .*/\2/p' \
			-e 's/^URIs: *\(https\{0,1\}:[^ ]*\).*/\1/p' "$f"
	done | grep -v -e security -e updates | head -n 1 || true
}

# mounted_under DIR: lists the mount points at or below DIR (deepest first).
mounted_under() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts |
		sort -r
}

# The root's mounts are this script's own (a private mount namespace), but say so
# loudly if anything of the host is still mounted there before a copy is deleted.
clean_root() {
	local m
	for m in $(mounted_under "$root"); do umount -l "$m" || true; done
	if [ -n "$(mounted_under "$root")" ]; then
		echo "fresh-check: still mounted under $root; not deleting it" >&2
		exit 1
	fi
	rm -rf --one-file-system "$root"
}

if [ -z "${FRESH_CHECK_INNER-}" ]; then
	# Re-run in a mount namespace of our own: the chroot's /proc, /dev and /sys vanish
	# with it even if this script is killed, and never propagate to the host's mounts.
	start=$SECONDS
	rc=0
	FRESH_CHECK_INNER=1 unshare --mount --propagation private bash "$0" "$@" || rc=$?
	echo "fresh-check: exit code $rc after $(((SECONDS - start) / 60)) min $(((SECONDS - \
		start) % 60)) s"
	exit "$rc"
fi

mkdir -p "$dir"
if [ ! -e "$base" ]; then
	url=${FRESH_MIRROR:-$(mirror)}
	url=${url:-http://deb.debian.org/debian}
	echo "fresh-check: debootstrap bookworm (minbase) from $url into $base (once)"
	rm -rf --one-file-system "$dir/base.tmp"
	debootstrap --variant=minbase --include=git,make,python3,ca-certificates \
		bookworm "$dir/base.tmp" "$url" >"$dir/debootstrap.log" 2>&1 ||
		{
			tail -n 20 "$dir/debootstrap.log" >&2
			echo "fresh-check: debootstrap failed ($dir/debootstrap.log)" >&2
			exit 1
		}
	tar -C "$dir/base.tmp" --numeric-owner --xattrs -cf "$base.tmp" .
	mv "$base.tmp" "$base"
	rm -rf --one-file-system "$dir/base.tmp"
fi

# shellcheck disable=SC2317  # called by the EXIT trap
clean_mounts() {
	local m
	for m in $(mounted_under "$root"); do umount -l "$m" || true; done
}
clean_root
trap clean_mounts EXIT	# on failure too
echo "fresh-check: a fresh copy of the minbase root in $root"
mkdir -p "$root"
tar -C "$root" --numeric-owner --xattrs -xf "$base"

head=$(git -C "$repo" rev-parse HEAD)
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
	echo "fresh-check: the tree has uncommitted changes; testing HEAD ($head) only"
fi
echo "fresh-check: cloning $head into $root/root/littlebig"
git clone -q --no-local "$repo" "$root/root/littlebig"
git -C "$root/root/littlebig" checkout -q "$head"

cp /etc/resolv.conf "$root/etc/resolv.conf"
# No daemon a package brings may start inside the chroot (it would run on the host).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"

echo "fresh-check: make test in the chroot, as root (log: $log)"
rc=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/littlebig && make test' </dev/null >"$log" 2>&1 || rc=$?
echo "fresh-check: last lines of make test:"
tail -n 25 "$log" | sed 's/^/    /'
exit "$rc"
