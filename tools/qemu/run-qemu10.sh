#!/bin/sh
# run-qemu10.sh - runs the privately unpacked QEMU 10 (tools/qemu/fetch-qemu10.sh) with its
# own modules (not the system's 7.2 ones, which it refuses) and no audio or display.
#   tools/qemu/run-qemu10.sh [QEMU ARGS...]
r=${QEMU10:-build/qemu10/root}
QEMU_MODULE_DIR=$(cd "$r/usr/lib/x86_64-linux-gnu/qemu" && pwd) exec \
	"$r/usr/bin/qemu-system-aarch64" -L "$r/usr/share/qemu" -audio none -display none "$@"
