#!/usr/bin/env bash
# deps.sh - makes sure every tool the build and the tests need is installed
# (Debian 12 packages). Quiet when all is present; otherwise says in one line
# which packages it installs and installs them (as root, or through sudo), or
# fails with the exact apt-get command to run. Called by the Makefile once
# (build/.deps-ok); run it by hand after a tool went missing.
#   tools/deps.sh           what make, make run and make test need
#   tools/deps.sh --debug   also gdb-multiarch (make debug)
#   tools/deps.sh --compare also what make compare needs to build static arm64 programs
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
# Trace timelines (make trace, tools/trace.py); Debian's python, not a venv's.
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
if [ "${1-}" = "--debug" ]; then
	need gdb-multiarch have gdb-multiarch
fi
if [ "${1-}" = "--compare" ]; then	# apt-get download and dpkg-deb come with apt and dpkg
	need libc6-dev-arm64-cross test -e /usr/aarch64-linux-gnu/lib/libc.a
fi

[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y ${missing[*]}"
if [ -n "${DEPS_SH_RECHECK-}" ]; then
	# Second pass after an install that said it worked: do not loop.
	echo "deps.sh: still missing after installing: ${missing[*]}" >&2
	exit 1
fi
echo "deps.sh: installing Debian packages: ${missing[*]}" >&2

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		sudo="unavailable"
	fi
fi
log=$(mktemp)
if [ "$sudo" != "unavailable" ] && command -v apt-get >/dev/null 2>&1 &&
	$sudo apt-get update >"$log" 2>&1 &&
	$sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y "${missing[@]}" >>"$log" 2>&1; then
	rm -f "$log"
	DEPS_SH_RECHECK=1 exec bash "$0" "$@"	# re-check what was installed
fi

tail -n 5 "$log" | sed 's/^/    /' >&2
rm -f "$log"
echo "deps.sh: could not install them; run as root:" >&2
echo "    apt-get update && $cmd" >&2
exit 1
