#!/bin/sh
# build-timectl.sh - builds issue 26's lead-2 plugin (tools/qemu/timectl.c) for QEMU >= 9.
#   tools/qemu/build-timectl.sh [BUILD]   -> BUILD/host/timectl.so (BUILD: build)
set -e
b=${1:-build}
mkdir -p "$b/host"
${HOSTCC:-cc} -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
	tools/qemu/timectl.c -o "$b/host/timectl.so"
echo "$b/host/timectl.so"
