#!/usr/bin/env bash
# deps.sh - makes sure every tool the build and the tests need is installed
# (Debian 12 packages). Quiet when all is present; otherwise says in one line
# which packages it installs and installs them (as root, or through sudo), or
# fails with the exact apt-get command to run. Called by the Makefile once, before
# anything runs in parallel (build/.deps-ok, whatever DEBUG is); run it by hand
# after a tool went missing. Two runs at once (make run here, make test there) take
# turns on a lock (DEPS_SH_LOCK, else /run/lock/littlebig-deps.lock, else a per-user
# file in /tmp); apt's own locks held by something else (unattended-upgrades) are
# waited for, up to DEPS_APT_WAIT seconds (600).
#   tools/deps.sh           what make, make run and make test need
#   tools/deps.sh --debug   also gdb-multiarch (make debug)
#   tools/deps.sh --compare also what make compare needs to build static arm64 programs
#   tools/deps.sh --fresh   also debootstrap (make fresh-check)
set -euo pipefail

missing=()
need() {	# need PACKAGE TEST...: PACKAGE is missing unless the test succeeds
	local pkg=$1
	shift
	if ! "$@" >/dev/null 2>&1; then
		case " ${missing[*]-} " in
		*" $pkg "*) ;;
		*) missing+=("$pkg") ;;
		esac
	fi
}
have() { command -v "$1"; }

# libFuzzer comes with Debian's clang only when its runtime package is there
# (libclang-rt-*-dev is merely recommended), so try to link a tiny fuzzer.
# shellcheck disable=SC2317  # called through need()
libfuzzer_links() {
	local dir rc
	dir=$(mktemp -d)
	printf '%s\n' 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)' \
		'{ return (int)(d && n) * 0; }' >"$dir/f.c"
	clang -fsanitize=fuzzer,address,undefined "$dir/f.c" -o "$dir/f" && rc=0 || rc=1
	rm -rf "$dir"
	return "$rc"
}

# check: fills missing[] with the packages whose tool is absent.
check() {
	missing=()
	need make have make
	need gcc have gcc
	need libc6-dev test -e /usr/include/stdio.h
	need cpp have cpp
	need gcc-aarch64-linux-gnu have aarch64-linux-gnu-gcc
	need binutils-aarch64-linux-gnu have aarch64-linux-gnu-objcopy
	need qemu-system-arm have qemu-system-aarch64
	need device-tree-compiler have dtc
	need python3 have python3
	need libfdt-dev test -e /usr/include/libfdt.h
	need libjsmn-dev test -e /usr/include/jsmn.h
	need clang have clang
	# Firmware boots and the HiKey960 boot image (make test, make hikey960).
	need u-boot-qemu test -e /usr/lib/u-boot/qemu_arm64/u-boot.bin
	need qemu-efi-aarch64 test -e /usr/share/qemu-efi-aarch64/QEMU_EFI.fd
	need u-boot-tools have mkenvimage
	need mkbootimg have mkbootimg
	# Trace timelines (make trace, tools/trace.py; make labs' pictures, which make test's
	# labs-tool draws too); Debian's python, not a venv's.
	need python3-matplotlib /usr/bin/python3 -c 'import matplotlib'
	# make lint (tools/lint.py; a run of make test). clang-format's output depends on its
	# version: the tree is formatted with Debian 12's clang-format 14.
	need clang-format have clang-format
	need shellcheck have shellcheck
	need pyflakes3 have pyflakes3
	if have clang >/dev/null; then
		need libclang-rt-dev libfuzzer_links
	else
		missing+=(libclang-rt-dev)
	fi
	if [ "$option" = "--debug" ]; then
		need gdb-multiarch have gdb-multiarch
	fi
	# make compare: apt-get download and dpkg-deb come with apt and dpkg.
	if [ "$option" = "--compare" ]; then
		need libc6-dev-arm64-cross test -e /usr/aarch64-linux-gnu/lib/libc.a
	fi
	if [ "$option" = "--fresh" ]; then	# make fresh-check (tools/fresh_check.sh)
		need debootstrap have debootstrap
	fi
}

option=${1-}
check
[ ${#missing[@]} -eq 0 ] && exit 0	# the usual case: no lock, no apt

# Something is missing. Another deps.sh may be installing it right now (make test in
# one terminal, make run in another): take turns on a lock, then look again, since
# that run may have installed what this one misses.
lock=${DEPS_SH_LOCK-}
if [ -z "$lock" ]; then
	lock=/run/lock/littlebig-deps.lock
	# /run/lock is world-writable and sticky: another user's lock file cannot be opened
	# (fs.protected_regular), so that user's runs and ours each get a lock of their own.
	if ! { : >>"$lock"; } 2>/dev/null; then
		lock=${TMPDIR:-/tmp}/littlebig-deps-$(id -u).lock
	fi
fi
if command -v flock >/dev/null 2>&1 && exec 9>>"$lock"; then
	if ! flock -n 9; then
		echo "deps.sh: waiting for another tools/deps.sh to finish (lock $lock)" >&2
		flock 9
	fi
	check
	[ ${#missing[@]} -eq 0 ] && exit 0
fi

cmd="apt-get install -y ${missing[*]}"
echo "deps.sh: installing Debian packages: ${missing[*]}" >&2

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		sudo="unavailable"
	fi
fi

# apt COMMAND...: runs apt-get (through sudo) with its output in $log. While another
# program holds one of apt's locks, waits for it (one line said) until DEPS_APT_WAIT
# seconds have passed since the first attempt. install waits inside apt-get too
# (DPkg::Lock::Timeout); apt-get 2.6's update does not: that option covers the dpkg
# lock only, and update fails at once on /var/lib/apt/lists/lock, hence the retries.
apt_wait=${DEPS_APT_WAIT:-600}
apt_start=$SECONDS
apt_said=""
log=$(mktemp)
apt() {
	while :; do
		if $sudo env DEBIAN_FRONTEND=noninteractive apt-get \
			-o DPkg::Lock::Timeout="$apt_wait" "$@" >>"$log" 2>&1; then
			return 0
		fi
		grep -q -e 'Could not get lock' -e 'Unable to lock' "$log" || return 1
		[ $((SECONDS - apt_start)) -lt "$apt_wait" ] || return 1
		if [ -z "$apt_said" ]; then
			echo "deps.sh: apt is busy ($(grep -m1 -o 'held by process.*' "$log" ||
				echo "locked")); waiting up to ${apt_wait} s" >&2
			apt_said=1
		fi
		: >"$log"
		sleep 5
	done
}

if [ "$sudo" != "unavailable" ] && command -v apt-get >/dev/null 2>&1 &&
	apt update && apt install -y "${missing[@]}"; then
	rm -f "$log"
	check	# what the packages installed must now be there: do not loop
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "deps.sh: still missing after installing: ${missing[*]}" >&2
	exit 1
fi

tail -n 5 "$log" | sed 's/^/    /' >&2
rm -f "$log"
echo "deps.sh: could not install them; run as root:" >&2
echo "    apt-get update && $cmd" >&2
exit 1
